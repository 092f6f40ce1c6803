# Tether's container image: `tether run --config /etc/tether/tether.yaml` as a non-root user.
# Build: docker build -t tether:0.1.0 .   (see docs/deployment.md; the Helm chart mounts the config)
# Base: the Node.js LTS line in support (24, "Krypton"; LTS until April 2028). Move to the next LTS
# line when it enters LTS, every October (docs/deployment.md, "The image"); the code also runs on
# Node 20 and 22 (package.json engines), where the tests run on these machines.

# --- build: all dependencies, compile TypeScript to dist/, bundle the agent into dist/tether.mjs ---
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY tools/bundle ./tools/bundle
RUN npm run build

# --- runtime: node and the agent as one bundled module ------------------------------------------
# The bundle carries every dependency it uses (tools/bundle/bundle.mjs), so no node_modules ship:
# one module instead of ~2,600 is ~40 MiB less resident memory (docs/benchmarks.md).
FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/dist/tether.mjs ./dist/tether.mjs
COPY package.json ./
# A fixed non-root uid/gid (the chart's runAsUser); no shell login, no home to write.
RUN groupadd --system --gid 10001 tether \
 && useradd --system --uid 10001 --gid tether --no-create-home --shell /usr/sbin/nologin tether
USER 10001:10001
# Metrics and probes (/metrics, /healthz, /readyz: the chart's ports.metrics) and the kubelet API
# (HTTPS). The actor tree (10256) listens on loopback only and is not exposed.
EXPOSE 10257 10250
# Liveness as the chart's probe does it; Kubernetes ignores HEALTHCHECK and uses the chart's probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:10256/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The young generation bounded as Node 20 bounds it by default (16 MiB semi-spaces): Node 24's V8
# grows it to 64 MiB semi-spaces under a storm, ~85 MiB more resident memory for no measured gain
# (docs/benchmarks.md, "The agent as one bundle").
ENTRYPOINT ["node", "--max-semi-space-size=16", "/app/dist/tether.mjs"]
CMD ["run", "--config", "/etc/tether/tether.yaml"]
