package main

import (
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/version" // kubernetes_build_info, as cmd/kubelet imports it
	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
	"podconfig-exporter/oracle/driver"
)

// The adapter's assumptions (the sourceURL layout it mirrors, the ops, the modes) against this
// version's source.
func TestAdapterMatchesSource(t *testing.T) {
	driver.CheckAdapterAgainstSource(t, driver.FullFacts(adapter{}))
}

// The series the witness reads, against what this version's kubelet registers (its
// metrics.Register, plus the process collector and build info of the legacy registry).
func TestWitnessMetrics(t *testing.T) {
	kubeletmetrics.Register()
	driver.CheckWitnessMetrics(t, legacyregistry.Registerer(), driver.KubernetesVersion())
}
