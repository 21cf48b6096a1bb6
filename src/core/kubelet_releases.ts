// The versions file: every kubelet minor this copy claims, oldest first, with the patch release
// it is checked against (the newest stable patch the Go module proxy serves for that minor:
// `go list -m -versions k8s.io/kubernetes`). Everything that lists the minors derives from it:
// KubeletMinors (version.ts), the cross-check's supported range (kubelet/signals.ts), the
// oracle pins (scripts/oracle/pins.ts), the committed schemas and their index
// (src/sources/manifest/schema/), and the Go modules of the oracles, the real node and the
// WebAssembly measurement (npm run versions writes and checks them). A test fails when any of
// them disagrees. ARCHITECTURE.md has the recipe for a new minor.
export const KubeletReleases = {
  "1.32": "1.32.13",
  "1.33": "1.33.13",
  "1.34": "1.34.4",
  "1.35": "1.35.4",
  "1.36": "1.36.3",
  "1.37": "1.37.2",
} as const;
