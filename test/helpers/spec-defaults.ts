/**
 * The operator settings' defaults as the spec's "Operator settings" table lists them, written
 * out rather than imported from the code under test, so a changed default fails the tests.
 */
export const SPEC_DEFAULT_SETTINGS = {
  poolEnabled: true,
  poolOutboundEnabled: true,
  poolInboundEnabled: true,
  poolLocalAffinity: 1,
  poolHealthPollSeconds: 30,
  poolPins: [],
  poolRequireSignedPeers: false,
  poolShareContainerStats: true,
  poolPressureWeight: 0,
  poolMaxPromptTokens: null,
  poolProbeSnapshotTtlMs: 0,
  poolPrefixAffinityMaxInFlight: 0,
  poolPrefixAffinityMargin: 0,
  poolSlotAwareness: 0,
  // Not in that table: the spec's context cap is a user setting ("Context caps"), absent by default.
  inferenceMaxNumCtx: null,
  // Not in the settings table: the node's slot statement ("Slot-aware placement"), absent by default.
  inferenceOllamaSlots: null,
  // Not in the settings table: the guide's "Discover Hubs on the LAN (mDNS)" switch, off by default.
  poolLanDiscovery: false,
} as const;
