module github.com/podconfig-exporter/realnode/pause

go 1.23
