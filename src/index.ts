// The package's public API: the readiness core (ARCHITECTURE.md, src/core/).
export * from "./core/index.js";
