// The package's public API: the readiness core (architecture.md, "Public API").
export * from "./core/index.js";
