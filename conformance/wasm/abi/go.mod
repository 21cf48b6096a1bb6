module podconfig-exporter/wasm/abi

go 1.26.0
