// The Python tools some suites drive (the official A2A Python client, Schemathesis) run in virtual
// environments that each tool's venv.sh makes (through test/support/python-venv.sh) from wheels
// kept in the repository. What a machine needs for that is python3 with its venv module (Debian:
// python3-venv, which .ci/run installs): without it those suites are skipped locally with the line
// that installs it, and refused under CI.
import { execFileSync } from 'node:child_process';

/** The command that gives a Debian machine what the Python suites need. */
export const PYTHON_VENV_INSTALL = 'apt-get install -y python3-venv';

function canMakeVenv(): boolean {
  try {
    execFileSync('python3', ['-c', 'import ensurepip, venv'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether python3 cannot make a virtual environment here (then the Python suites skip; CI refuses to). */
export const pythonVenvMissing = !canMakeVenv();
if (pythonVenvMissing && process.env.CI === 'true')
  throw new Error(`The Python suites need python3 with its venv module; CI must not skip them: ${PYTHON_VENV_INSTALL}`);
if (pythonVenvMissing)
  console.warn(`\n[python suites] python3 cannot make a virtual environment: NOT RUN (${PYTHON_VENV_INSTALL})\n`);
