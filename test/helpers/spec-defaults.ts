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
} as const;
