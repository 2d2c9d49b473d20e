/**
 * The composition root: the one place that builds every subsystem once and hands each its
 * dependencies. Nothing else constructs services, reads the environment or owns a timer.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from './util/undici-lean.js';
import type { FastifyInstance } from 'fastify';
import type { HubEnv } from './config/env.js';
import { HUB_INFO_FILE, loadOrCreateOperatorKey, removeHubInfo, writeHubInfo } from './config/data-dir.js';
import { claimDataDir, type DataDirClaim } from './config/data-dir-lock.js';
import { ensureDataDir } from './config/data-dir-modes.js';
import { dataDirUnusable } from './config/data-dir-unusable.js';
import { hubInfoUrl } from './config/hub-info-url.js';
import { resolvePoolDirections } from './config/kill-switch.js';
import { SettingsFile, settingsProblemText } from './config/settings-file.js';
import { BackendHealth, QUEUE_REPORT_IDLE_REFRESH_MS } from './engines/health-snapshot.js';
import { readEngineQueue } from './engines/engine-queue-reader.js';
import { localQueueDepth } from './placement/local-queue-depth.js';
import type { HubServices } from './http/services.js';
import { buildServer } from './http/server.js';
import { InFlight } from './proxy/in-flight.js';
import { LocalRoutes } from './proxy/local-routes.js';
import { PoolProxy, type PoolAccess } from './proxy/pool-proxy.js';
import { PrefixAffinity } from './placement/affinity/prefix-affinity.js';
import { EngineRefusalWarnings } from './proxy/engine-refusal-warnings.js';
import { EngineWork } from './proxy/engine-work.js';
import { ThroughputSampler } from './proxy/throughput-sampler.js';
import { ThroughputBook } from './placement/throughput/book.js';
import { advertOf } from './peers/throughput-advert.js';
import { releaseResident, RESIDENCY_CHECK_MS } from './proxy/residency-release.js';
import { localUnservable, WithholdBook } from './proxy/withhold-book.js';
import type { BackendView } from './engines/types.js';
import { usablePeers } from './peers/usable-peers.js';
import { RoutingLog } from './routing-log/ring.js';
import { HubMetrics } from './metrics/hub-metrics.js';
import { buildPoolStatus } from './status/pool-status.js';
import { NodeIdentity } from './identity/node-identity.js';
import { PeerNonces } from './store/peer-nonces.js';
import { PairingPin } from './pairing/pairing-pin.js';
import { PairingService } from './pairing/pairing-service.js';
import { AddressPairing } from './pairing/pair-by-address.js';
import { StrikeLimiter } from './pairing/strike-limiter.js';
import { HealthPoller } from './peers/health-poller.js';
import { tellPeersLeaving } from './peers/leaving-notice.js';
import { PeerClient } from './peers/peer-client.js';
import { peerView } from './peers/peer-view.js';
import type { PoolPeers } from './peers/pool-peers.js';
import { PeerStore } from './store/peers.js';
import { parsePeerOrigins, type PeerOrigins } from './tailnet/peer-origins.js';
import { privateOnlyAgent } from './tailnet/pinned-dial.js';
import { systemResolver } from './tailnet/private-address.js';
import { envTailscale } from './tailnet/env-tailscale.js';
import { arch, hostname, platform, totalmem } from 'node:os';
import { PressureSampler } from './machine/pressure-sampler.js';
import { gpuBesideAmdCounter, pressurePaths, readPressure } from './machine/pressure-sources.js';
import { HardwareReport } from './machine/hardware-report.js';
import { nvidiaSmiRunner, probeHardware, PROC_NVIDIA_DIR, PROC_VERSION_FILE, SYS_DRM_DIR, sysctlRunner } from './machine/hardware-probe.js';
import { ContainerSampler } from './containers/container-sampler.js';
import { DockerApi } from './containers/docker-api.js';
import { AdminApiClient } from './discovery/admin-api.js';
import { DiscoveryService } from './discovery/discovery-service.js';
import { LanPresence } from './discovery/lan-presence.js';
import { openMulticastDns } from './discovery/multicast-transport.js';
import { identifyProbe } from './discovery/identify-probe.js';
import { MembershipCache, tailnetToAsk } from './discovery/membership.js';
import { peerClockSkews } from './peers/peer-clock.js';
import { publishOnce, publishSettled, SERVE_PUBLISH_RETRY_MS } from './tailnet/serve-publisher.js';
import { reachableFromLoopback } from './tailnet/tailscale-serve.js';
import { tailscaleReport } from './tailnet/tailscale-report.js';
import { ApiKeyStore } from './store/api-keys.js';
import { DATABASE_FILE_NAME, openDatabase } from './store/database.js';
import { Background } from './util/background.js';
import { removeLeftoverTemporaryFiles, unsyncedWriteText, type UnsyncedWrite } from './util/atomic-write.js';
import { closePooledParsers, nodeParserPool } from './util/http-parser-pool.js';
import { fullCollection, IDLE_COLLECTION_CHECK_MS, IdleCollector, readHeap } from './util/idle-collection.js';
import { windowHandout } from './placement/handout.js';
import { systemClock, type Clock } from './util/clock.js';
import { closeAgent } from './util/close-agent.js';
import { createHubLogger, type Logger } from './util/logger.js';
import { CIHUB_VERSION } from './cli/version.js';
import { OtlpExporter } from './tracing/otlp-exporter.js';
import { Tracer } from './tracing/tracer.js';

/** How long SIGTERM waits for in-flight requests before closing their connections: 30 s. */
export const SHUTDOWN_DRAIN_TIMEOUT_MS = 30_000;
/** While draining, how often the Hub checks whether the last request has finished. */
const DRAIN_POLL_MS = 50;
/** After the drain, how long calls this Hub made (to engines and peers) may take to finish before they are cut. */
const AGENT_CLOSE_GRACE_MS = 1_000;
/** Idle keep-alive connections to engines are kept this long. */
const ENGINE_KEEP_ALIVE_MS = 30_000;

export interface HubSystem {
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  readonly logger: Logger;
  /** Stops taking requests, drains the ones in flight (up to SHUTDOWN_DRAIN_TIMEOUT_MS), releases everything. */
  close(): Promise<void>;
  /** Ends the drain close() is in now, as its deadline would: the requests still open are closed and the stop goes on. */
  cutDrainShort(): void;
}

export interface StartOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export async function startHub(env: HubEnv, opts: StartOptions = {}): Promise<HubSystem> {
  // First, before the logger or anything else opens a file there: a second Hub on this data dir stops here.
  const claim = claimDataDir(env.dataDir);
  try {
    return await startClaimed(env, opts, claim);
  } catch (err) {
    claim.release();
    throw err;
  }
}

async function startClaimed(env: HubEnv, opts: StartOptions, claim: DataDirClaim): Promise<HubSystem> {
  const clock = opts.clock ?? systemClock;
  // The Hub's own logger writes stdout and the rotated file `cihub logs` reads (src/logs/log-file.ts).
  const hubLog = opts.logger ? null : createHubLogger(env.logLevel, env.dataDir);
  const logger = opts.logger ?? hubLog!.logger;
  // What the Hub set aside while starting, kept for status (and so `cihub pool status` and doctor)
  // as well as the log: a warning only in a log nobody follows goes unseen.
  // Keyed so a line that stops being true can be replaced in place (settings.json's ignored keys, once rewritten).
  const startupWarnings = new Map<string, string>();
  let starting = true;
  const warnAtStart = (fields: Record<string, unknown>, text: string, key = text): void => {
    if (starting || startupWarnings.has(key)) startupWarnings.set(key, text);
    logger.warn(fields, text);
  };
  for (const p of env.problems)
    warnAtStart({ variable: p.variable, value: p.value, usedInstead: p.usedInstead }, `${p.variable}=${p.value} ${p.problem}; using ${p.usedInstead}`);
  try {
    ensureDataDir(env.dataDir);
  } catch (err) {
    // A data dir this account may write but not list (mode 0300) ended the start with a bare EACCES.
    const path = (err as NodeJS.ErrnoException).path ?? env.dataDir;
    throw dataDirUnusable(env.dataDir, path, err, path === env.dataDir ? 'directory' : 'file');
  }
  // The data dir is this process's now (claimDataDir above), so no temporary file in it is being written.
  let leftovers: string[];
  try {
    leftovers = removeLeftoverTemporaryFiles(env.dataDir);
  } catch (err) {
    // A leftover the disk would not let go (read-only) ended the start with the bare errno, exit 1.
    const path = (err as NodeJS.ErrnoException).path ?? env.dataDir;
    throw dataDirUnusable(env.dataDir, path, err, path === env.dataDir ? 'directory' : 'file');
  }
  if (leftovers.length > 0) logger.info({ removed: leftovers }, 'removed temporary files an interrupted write left in the data dir');
  const background = new Background({ logger, clock });
  const settings = new SettingsFile(env.dataDir, (problem) =>
    warnAtStart({ settingsFile: problem }, settingsProblemText(problem), problem.kind === 'ignored-keys' ? 'settings.json ignored keys' : undefined),
  );
  const db = openDatabase(join(env.dataDir, DATABASE_FILE_NAME));
  let listeningPort = env.port;
  const apiKeys = new ApiKeyStore(db, clock);
  // A file in place whose rename may not survive a power cut: worth a warning, not a refused start.
  const logUnsynced = (u: UnsyncedWrite) => logger.warn({ unsyncedWrite: u }, unsyncedWriteText(u));
  // An emptied key file (a disk fault, a botched edit) is re-minted: every client's key stops working, so it is said.
  const operatorKey = loadOrCreateOperatorKey(env.dataDir, logUnsynced, (path) =>
    logger.warn({ path }, `${path} was empty, so a new operator key was minted; the CLI reads it there, and the dashboard and scripts need it again`),
  );
  const dispatcher = new Agent({ keepAliveTimeout: ENGINE_KEEP_ALIVE_MS, connections: null });
  // Peers dialled by name: every connection checks the address it resolves to (issue 9, #19).
  const nameDispatcher = privateOnlyAgent(systemResolver, ENGINE_KEEP_ALIVE_MS);
  const inFlight = new InFlight();
  const health = new BackendHealth({
    endpoints: env.engines,
    dispatcher,
    clock,
    ttlMs: () => settings.get().poolProbeSnapshotTtlMs,
    background,
    logger,
    // What each engine says about its own queue, read behind the snapshot (engines/engine-queue-reader.ts).
    readQueue: (e, d, signal) => readEngineQueue(e.kind, e.url, d, signal),
    ownInFlight: (id) => inFlight.count(id),
  });
  // This node's queue depth per engine: the proxy's own count plus other clients' work the engine reported.
  const localDepth = (views: readonly BackendView[]) => views.reduce((sum, b) => sum + localQueueDepth(inFlight.count(b.backendId), b.engineQueue), 0);
  const engineIds = new Set(env.engines.map((e) => e.id));
  // Gauges read these at scrape time only, after everything below exists.
  const metrics = new HubMetrics({
    inFlight: () => inFlight.entries(),
    engineIds: () => engineIds,
    engines: () =>
      health
        .latest()
        .filter((b) => b.probedMsAgo !== null)
        .map((b) => ({ id: b.backendId, kind: b.kind, healthy: b.healthy })),
    peers: () => peers.store.list().map((row) => ({ name: row.nodeFqdn, status: row.status, enabled: row.enabled })),
    withheld: () => [
      ...outputFaults.withheld().map((w) => ({ book: 'output_fault' as const, key: w.key })),
      ...unservable.withheld().map((w) => ({ book: 'unservable' as const, key: w.key })),
    ],
    openConnections: () => new Promise((resolve, reject) => app.server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
  });
  // One id for this process: the routing log's cursor reset signal and hub.json's liveness proof.
  const bootId = randomUUID();
  const routingLog = new RoutingLog({ size: env.routingLogSize, clock, bootId, onSettle: (row) => metrics.onSettle(row) });
  const directions = () => resolvePoolDirections(env, settings.get());
  const peerOrigins = parsePeerOrigins(env.peerOriginsRaw);
  if (peerOrigins.problems.length > 0)
    warnAtStart({ problems: peerOrigins.problems }, `HUB_POOL_PEER_ORIGINS has entries that were ignored: ${peerOrigins.problems.join('; ')}`);
  // Both kinds of entry, as status and doctor show them: an address entry silently sends a probe,
  // a PIN and a pairing request to another origin, which is the case most in need of the warning.
  const dialledOrigins: ReadonlyMap<string, string> = new Map([...peerOrigins.map, ...peerOrigins.addresses]);
  const peers = buildPoolPeers({ env, db, clock, logger, dispatcher, nameDispatcher, origins: peerOrigins, settings, inFlight, background });
  const lan = new LanPresence({
    enabled: () => settings.get().poolLanDiscovery,
    nodeFqdn: async () => (await peers.self()).nodeFqdn,
    hostName: hostname(),
    port: () => listeningPort,
    open: () => openMulticastDns(env.host),
    clock,
    logger,
  });
  const docker = env.dockerSocket === null ? null : new DockerApi(env.dockerSocket);
  const containers = new ContainerSampler({
    docker,
    projects: env.composeProjects,
    hostname: hostname(),
    shared: () => settings.get().poolShareContainerStats,
    clock,
    logger,
    background,
  });
  const refusals = new EngineRefusalWarnings(clock, logger);
  const hardware = new HardwareReport();
  // GPU pressure reads only while a peer is connected: without one, a tick is this one query.
  const pressurePathsHere = pressurePaths(env.dataDir);
  const pressure = new PressureSampler({
    clock,
    logger,
    read: () => readPressure(pressurePathsHere, { amdCounter: gpuBesideAmdCounter(hardware.view().gpus) === null, nowMs: clock.nowMs() }),
    peerConnected: () => peers.store.list().some((row) => row.status === 'connected'),
  });
  const pool: PoolAccess = {
    usablePeers: () =>
      directions().outbound.enabled
        ? usablePeers({
            store: peers.store,
            health: (id) => peers.poller.health(id),
            forwarded: (name) => inFlight.count(name),
            origins: peers.origins,
            nowMs: clock.nowMs(),
            pollSeconds: settings.get().poolHealthPollSeconds,
          })
        : [],
    peerAuth: async (peerId, method, path, body) => {
      const row = peers.store.get(peerId);
      return row === null ? 'the pairing is gone' : peers.client.authFor(row, method, path, body);
    },
    onPeerRefused: (peerId) => peers.poller.dropCapabilities(peerId),
    onEngineRefusal: (peer, engine, status) => refusals.note(peer, engine, status),
  };
  const outputFaults = new WithholdBook(clock);
  const unservable = new WithholdBook(clock);
  const onWithholdChange = (backendId: string, model: string, withheld: boolean, reason: string) => {
    // The proxy learned something the snapshot does not know: the next request re-probes this engine.
    health.drop(backendId);
    if (withheld) logger.warn({ backend: backendId, model, reason }, `withholding ${model} on ${backendId}: it failed twice within five minutes`);
    else logger.info({ backend: backendId, model }, `${model} on ${backendId} served again; no longer withheld`);
  };
  const throughputBook = new ThroughputBook(clock);
  const engineWork = new EngineWork();
  const localInFlight = () => env.engines.reduce((sum, e) => sum + inFlight.count(e.id), 0);
  const observers = [
    engineWork,
    // A reading is taken only when the node had nothing else in flight, so a queue is never recorded as slow hardware.
    new ThroughputSampler({ book: throughputBook, aloneOn: (c) => (c.peerId === null ? localInFlight() === 1 : inFlight.count(c.node) === 1) }),
  ];
  const affinity = new PrefixAffinity({ clock, ttlMs: env.prefixAffinityTtlMs });
  // Spans leave only when an OTLP endpoint is configured; otherwise nothing is recorded at all.
  const exporter =
    env.otlp === null
      ? null
      : new OtlpExporter({
          url: env.otlp.tracesUrl,
          headers: env.otlp.headers,
          resource: { serviceName: env.otlp.serviceName, serviceVersion: CIHUB_VERSION, hostName: hostname() },
          dispatcher,
          onBatchReady: () => background.run('otlp trace export', () => exporter?.flush()),
        });
  if (exporter !== null && env.otlp !== null) {
    background.every('otlp trace export', env.otlp.intervalMs, () => exporter.flush());
    logger.info({ tracesUrl: env.otlp.tracesUrl, serviceName: env.otlp.serviceName }, 'exporting request spans over OTLP');
  }
  const proxy = new PoolProxy({
    pool,
    outputFaults,
    unservable,
    onWithholdChange,
    env,
    settings: () => settings.get(),
    health,
    inFlight,
    routingLog,
    dispatcher,
    logger,
    clock,
    observers,
    throughputBook,
    engineWork,
    // This node's context cap is the window its Ollama runs a request that names none.
    defaultNumCtx: () => settings.get().inferenceMaxNumCtx,
    affinity,
    ownPressure: () => pressure.band(),
    tracer: new Tracer({ sink: exporter, clock }),
  });
  // The listings and what peers are told leave out what candidates leave out: one rule (placement/candidates.ts).
  const unservableLocally = localUnservable(unservable);
  const localRoutes = new LocalRoutes({ pool, health, dispatcher, proxy, logger, unservable: unservableLocally });

  const services: HubServices = {
    env,
    logger,
    clock,
    operatorKey,
    bootId,
    settings,
    apiKeys,
    routingLog,
    proxy,
    localRoutes,
    peers,
    addressPairing: new AddressPairing({
      store: peers.store,
      identity: peers.identity,
      self: peers.self,
      poolOff: () => directions().disabledBy,
      rotating: () => peers.pairing.rotating,
      resolve: systemResolver,
      addressOrigins: peerOrigins.addresses,
      dispatcher,
      clock,
      logger,
    }),
    directions,
    localInventory: () => health.latest(),
    ollamaSlots: () => settings.get().inferenceOllamaSlots,
    throughputAdvert: () => advertOf(throughputBook.estimates((k) => k.node === 'local')),
    gpuPressure: () => pressure.band(),
    hardwareTier: () => hardware.tier(),
    containersPublished: () => containers.published(),
    // Only this node's engines: what it forwards to peers is counted in their own figures. Work
    // other clients sent those engines directly counts too, where the engine reports it.
    inFlightTotal: () => localDepth(health.latest()),
    unservable: unservableLocally,
    storeOpen: () => db.open,
    metrics,
    discovery: new DiscoveryService({
      lan,
      tailscale: () => peers.tailscale.status(),
      self: peers.self,
      adminApi: peers.adminApi,
      heldNames: () => new Set(peers.store.list().map((row) => row.nodeFqdn)),
      identify: identifyProbe(peers.client),
      clock,
      logger,
    }),
    tailscaleReport: async () => tailscaleReport(peers.tailscale, await peers.self(), env.tailscaleBinary, port),
    peerClocks: () => peerClockSkews(peers.store.list(), peers.client, clock),
    handout: (model) =>
      windowHandout(model, { backends: health.latest(), maxNumCtx: settings.get().inferenceMaxNumCtx, unservable: unservableLocally }, pool.usablePeers()),
    status: async () => {
      // The daemon's own tailnet name, read even under the stand-ins: it is what the Admin API leg is asked about.
      const [self, daemon] = await Promise.all([peers.self(), peers.tailscale.status()]);
      const tailnet = { ...self, tailnetName: daemon.tailnetName };
      const nowMs = clock.nowMs();
      const pollSeconds = settings.get().poolHealthPollSeconds;
      const peerViews = peers.store
        .list()
        .map((row) => peerView(row, peers.poller.health(row.id), { selfName: tailnet.nodeFqdn, pairing: peers.pairing.notesOn(row.id), nowMs, pollSeconds }));
      const usable = pool.usablePeers();
      return buildPoolStatus({
        startupWarnings: [...startupWarnings.values()],
        directions: directions(),
        settings: settings.get(),
        envMaxPromptTokens: env.maxPromptTokens,
        backends: health.latest(),
        inFlight: (id) => inFlight.count(id),
        peers: peerViews,
        tailnet,
        identity: peers.identity.summary(),
        pairingPin: peers.pin.status(),
        peerOrigins: dialledOrigins,
        tailscaleAdminApiConfigured: env.tailscaleAdminApiConfigured,
        // The proxy's own predicate, so a pin's targetAvailable cannot disagree with routing.
        usablePeers: usable,
        forwarded: (name) => inFlight.count(name),
        withheld: { outputFaults: outputFaults.withheld(), unservable: unservable.withheld() },
        containers: containers.report(),
        placement: {
          book: throughputBook,
          peerFacts: (id) => {
            const h = peers.poller.health(id);
            return h.capabilities === null
              ? null
              : { ollamaSlots: h.capabilities.ollamaSlots, throughput: h.capabilities.throughput, snapshotAtMs: h.capabilitiesAtMs };
          },
          nowMs: clock.nowMs(),
        },
        machine: {
          local: { gpuPressure: pressure.view(), hardware: hardware.view() },
          peerFacts: (id) => {
            const h = peers.poller.health(id);
            return h.capabilities === null ? null : { gpuPressure: h.capabilities.gpuPressure, snapshotAtMs: h.capabilitiesAtMs };
          },
          nowMs: clock.nowMs(),
        },
      });
    },
  };

  const app = await buildServer(services);
  await app.listen({ port: env.port, host: env.host });
  starting = false;
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : env.port;
  listeningPort = port;
  const url = typeof address === 'object' && address !== null ? hubInfoUrl(address) : `http://${env.host.includes(':') ? `[${env.host}]` : env.host}:${port}`;
  let hubInfoUnsynced: UnsyncedWrite | null;
  try {
    hubInfoUnsynced = writeHubInfo(env.dataDir, {
      url,
      port,
      pid: process.pid,
      startedAt: new Date(clock.nowMs()).toISOString(),
      bootId,
      bootProof: true,
      version: CIHUB_VERSION,
    });
  } catch (err) {
    // The listener is open by now, and the CLI finds a Hub only through hub.json: left open, it
    // kept the process serving after the start had been reported failed (seen on a read-only disk).
    await app.close();
    background.close();
    health.close();
    db.close();
    throw err;
  }
  if (hubInfoUnsynced !== null) logUnsynced(hubInfoUnsynced);
  health.latest();
  peers.poller.start();
  containers.start();
  peers.identity.warmIfPresent();
  // The LAN source follows its switch from now on: opened only while poolLanDiscovery is true.
  settings.onChange(() => void lan.sync());
  void lan.sync();
  // Publish with Serve only when the daemon names this Hub (not under the development stand-ins).
  // These are the parsed values: a stand-in refused at start counts as unset, as its warning says.
  if (env.nodeFqdn === null && env.tailnetSuffix === null && env.tailscaleBinary !== null) {
    if (reachableFromLoopback(env.host)) {
      const tryPublish = async () => {
        if (!publishSettled(peers.tailscale.lastPublish())) await publishOnce(peers.tailscale, port, logger);
      };
      background.run('tailscale serve publish', tryPublish);
      background.every('tailscale serve publish', SERVE_PUBLISH_RETRY_MS, tryPublish);
    } else {
      logger.warn({ host: env.host }, `not publishing with Tailscale Serve: the Hub listens on ${env.host}, which Serve cannot reach at 127.0.0.1`);
    }
  }
  // Engines' own queue reports stay fresh between requests, so a quiet Hub's first placement reads a recent one.
  background.every('engine queue reports', QUEUE_REPORT_IDLE_REFRESH_MS, () => health.refreshQueueReports());
  background.run('hardware tier detection', async () => {
    const decision = await hardware.detect(() =>
      probeHardware({
        platform: platform(),
        arch: arch(),
        totalMemoryBytes: totalmem(),
        nvidiaSmi: env.nvidiaSmiBinary,
        runNvidiaSmi: nvidiaSmiRunner,
        drmDir: SYS_DRM_DIR,
        nvidiaProcDir: PROC_NVIDIA_DIR,
        procVersionFile: PROC_VERSION_FILE,
        runSysctl: sysctlRunner,
      }),
    );
    logger.info(
      { hardwareTier: decision.tier, unknownBecause: decision.unknownBecause },
      decision.tier === null ? `hardware tier not detected: ${decision.unknownBecause ?? 'unknown'}; none is advertised` : `hardware tier: ${decision.tier}`,
    );
  });
  pressure.start((name, ms, task) => background.every(name, ms, task));
  background.every('residency release', RESIDENCY_CHECK_MS, () =>
    releaseResident(health.latest(), unservable, dispatcher, (backendId, model) => onWithholdChange(backendId, model, false, 'resident in /api/ps')),
  );
  if (peerOrigins.addresses.size > 0)
    logger.warn(
      { map: Object.fromEntries(peerOrigins.addresses) },
      'HUB_POOL_PEER_ORIGINS maps addresses: probing and pairing by these addresses dial these origins (development only)',
    );
  if (peers.origins.size > 0)
    logger.warn(
      { map: Object.fromEntries(peers.origins) },
      'HUB_POOL_PEER_ORIGINS is set: peers are dialled at these origins, not at https://<name> (development only)',
    );
  logger.info({ url, host: env.host, dataDir: env.dataDir, engines: env.engines.map((e) => `${e.id}=${e.url}`) }, 'hub listening');

  // Requests in progress, counted at the socket level so hijacked proxy responses count too.
  // Draining waits for these, not for connections: a keep-alive connection between requests
  // holds nothing, but Node's server.close() would wait for it.
  let openRequests = 0;
  app.server.on('request', (_req, res) => {
    openRequests += 1;
    res.once('close', () => (openRequests -= 1));
  });
  const parserPool = nodeParserPool();
  const idle = new IdleCollector({
    inFlight: () => inFlight.total(),
    placed: () => inFlight.placed,
    readHeap,
    collector: fullCollection,
    closePooledParsers: () => closePooledParsers(parserPool),
  });
  background.every('idle collection', IDLE_COLLECTION_CHECK_MS, () => {
    const collected = idle.check();
    if (collected !== null) logger.debug(collected, 'collected the garbage a burst of requests left');
  });

  let closing: Promise<void> | null = null;
  let drainCutShort = false;
  const close = () =>
    (closing ??= (async () => {
      logger.info({ inFlight: inFlight.total(), openRequests }, 'hub stopping: draining in-flight requests');
      // No new health probe during the drain: a hung peer's probe runs its full 15 s and would
      // hold the exit that long past the drain (seen: 42.9 s from SIGTERM, near the 45 s kill).
      peers.poller.stop();
      // Tell paired peers first, so they stop sending work while this Hub drains. A Hub with
      // pooling switched off has left the pool already and makes no pool call on the way out. A
      // requester whose confirmation is still on its way holds this Hub as a request, and would
      // refuse the notice.
      const toTell = peers.store.list().filter((row) => !peers.pairing.notesOn(row.id).confirming);
      const leaving = directions().enabled
        ? tellPeersLeaving(toTell, peers.client, settings.get().poolRequireSignedPeers).then(
            (outcome) =>
              logger.info(
                outcome,
                `leaving notice: ${outcome.told.length} peer(s) told, ${outcome.notTold.length} not reached, ${outcome.skipped.length} on bearer tokens left to notice by polling`,
              ),
            (err: unknown) => logger.warn({ err }, 'leaving notice not sent'),
          )
        : Promise.resolve();
      const closed = app.close();
      // The drain's 30 s are a length of time, not a moment on the wall clock, so they are measured
      // on performance.now(), which setting the wall clock does not move (as closeAgent measures its
      // grace). On the Hub's Clock, NTP setting it back during the drain held the exit for as long
      // as the step, past the supervisor's 45 s kill, and setting it forward cut every request at once.
      const drainEndsAt = performance.now() + SHUTDOWN_DRAIN_TIMEOUT_MS;
      while (openRequests > 0 && performance.now() < drainEndsAt && !drainCutShort) await sleep(DRAIN_POLL_MS);
      // Said here because the requests cut next are otherwise recorded as their callers hanging up.
      if (openRequests > 0)
        logger.warn(
          { openRequests },
          drainCutShort
            ? `drain cut short: closing ${openRequests} request(s) still open`
            : `drain deadline reached: closing ${openRequests} request(s) still open`,
        );
      app.server.closeAllConnections();
      await closed;
      await leaving;
      background.close();
      // Spans of the requests just drained go out before the connections close.
      if (exporter !== null) await background.settle('otlp trace export', () => exporter.finish());
      health.close();
      peers.identity.close();
      lan.stop();
      // A call started before SIGTERM (a health probe of a hung peer, up to 15 s) is not worth
      // holding the exit for: after the drain, what is still out gets a short grace, then is cut.
      const cuts = await Promise.all([dispatcher, nameDispatcher].map((agent) => closeAgent(agent, AGENT_CLOSE_GRACE_MS)));
      const cut = cuts.reduce((a, b) => a + b, 0);
      if (cut > 0) logger.info({ cut }, `${cut} call(s) still out after the drain were cut`);
      await docker?.close();
      db.close();
      try {
        removeHubInfo(env.dataDir, process.pid);
      } catch (err) {
        // A disk turned read-only must not turn a clean stop into a crash: the CLI checks the pid
        // and boot id a left-behind hub.json names, and the next start replaces the file.
        logger.warn({ err }, `${HUB_INFO_FILE} could not be removed; it names this stopped Hub until the next start replaces it`);
      }
      logger.info('hub stopped');
      hubLog?.file.close();
      // Last: the next Hub on this data dir may start once nothing here writes to it any more.
      claim.release();
    })());

  const cutDrainShort = () => {
    drainCutShort = true;
  };

  return { url, port, app, logger, close, cutDrainShort };
}

/** The peer side of the Hub: identity, pairing, the guard's state and the health poller. */
function buildPoolPeers(deps: {
  env: HubEnv;
  db: ReturnType<typeof openDatabase>;
  clock: Clock;
  logger: Logger;
  dispatcher: Agent;
  nameDispatcher: Agent;
  origins: PeerOrigins;
  settings: SettingsFile;
  inFlight: InFlight;
  background: Background;
}): PoolPeers {
  const { env, db, clock, logger, dispatcher, nameDispatcher, origins, settings, inFlight, background } = deps;
  const { tailscale, self } = envTailscale(env, clock, logger);
  const adminApi = env.tailscaleOAuth === null ? null : new AdminApiClient({ ...env.tailscaleOAuth, clock });
  // The Admin API layer of the inbound tailnet check; null when there is no tailnet to ask about.
  const members =
    adminApi === null
      ? null
      : new MembershipCache(
          async () => {
            const tailnet = tailnetToAsk((await tailscale.status()).tailnetName, (await self()).tailnetSuffix);
            return tailnet === null ? null : adminApi.devices(tailnet);
          },
          () => clock.nowMs(),
        );
  const membership = members === null ? undefined : async (name: string) => members.check(name);
  const store = new PeerStore(db);
  const identity = new NodeIdentity({ db, dataDir: env.dataDir, envSecret: env.identitySecret, clock, logger, background });
  const pin = new PairingPin({ clock });
  const client = new PeerClient({
    identity,
    selfName: async () => (await self()).nodeFqdn,
    origins: origins.map,
    dispatcher,
    nameDispatcher,
    settings: () => settings.get(),
    clock,
  });
  const pollSeconds = () => settings.get().poolHealthPollSeconds;
  let poller: HealthPoller | null = null;
  const pairing = new PairingService({
    store,
    identity,
    client,
    pin,
    limiter: new StrikeLimiter({ clock }),
    self,
    poolOff: () => resolvePoolDirections(env, settings.get()).disabledBy,
    requireSigned: () => settings.get().poolRequireSignedPeers,
    pollSeconds,
    clock,
    logger,
    onConnected: (peer) => poller?.pollSoon(peer),
    membership,
  });
  const nonces = new PeerNonces(db);
  poller = new HealthPoller({
    store,
    client,
    pairing,
    identity,
    pollSeconds,
    clock,
    logger,
    forwardsTo: (name) => inFlight.count(name),
    onTick: (nowMs) => nonces.prune(nowMs),
    background,
  });
  return { store, identity, pairing, poller, pin, nonces, client, self, origins: origins.map, tailscale, adminApi };
}
