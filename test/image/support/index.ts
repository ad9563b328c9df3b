// What an image test needs to build, push, pull and run real container images on a machine that
// reaches no public container registry. Typical use:
//
//   describe.runIf(imageEnginesReady())('…', () => {
//     beforeAll(async () => {
//       await ensureBaseImage();                               // local node:20.19-bookworm-slim
//       registry = await startLoopbackRegistry(join(dir, 'registry'));
//       env = writeEngineConfig(join(dir, 'engine'), { insecureRegistries: [registry.host] });
//     }, ENSURE_BASE_IMAGE_TIMEOUT_MS);
//     it('…', async () => {
//       await runCommand('podman', ['build', '-f', 'Dockerfile', '-t', tag, context], { env, timeoutMs: 300_000 });
//       const container = await runContainer({ image: tag, engineEnv: env, port: 8080 });
//       try { await container.waitForHttp('/ready'); } finally { await container.remove(); }
//     });
//   });
export { BASE_IMAGE, ENSURE_BASE_IMAGE_TIMEOUT_MS, ensureBaseImage } from './base-image.js';
export { runContainer, type ContainerVolume, type RunContainerOptions, type RunningContainer } from './container.js';
export { writeEngineConfig, type EngineConfigOptions } from './engine-config.js';
export { IMAGE_TOOLS_INSTALL, imageEnginesReady } from './image-engines.js';
export { startLoopbackRegistry, type LoopbackRegistry } from './loopback-registry.js';
export { runCommand, type RunCommandOptions } from './run-command.js';
export { waitForHttp, type WaitForHttpOptions } from './wait-for-http.js';
export { useImageWorkspace, type ImageWorkspace } from './image-workspace.js';
export { isProductionToolchain } from './production-toolchain.js';
