package driver

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
)

// WitnessMetric is a kubelet series the witness (src/kubelet/signals.ts) reads, with the labels
// it selects on.
type WitnessMetric struct {
	Name   string
	Labels []string
}

// WitnessMetrics are the series src/kubelet/signals.ts reads from the kubelet's /metrics.
var WitnessMetrics = []WitnessMetric{
	{Name: "process_start_time_seconds"},
	{Name: "kubernetes_build_info", Labels: []string{"git_version"}},
	{Name: "kubelet_pleg_last_seen_seconds"},
	{Name: "kubelet_pleg_relist_duration_seconds"},
	{Name: "kubelet_runtime_operations_total", Labels: []string{"operation_type"}},
	{Name: "kubelet_runtime_operations_errors_total", Labels: []string{"operation_type"}},
	{Name: "kubelet_desired_pods", Labels: []string{"static"}},
	{Name: "kubelet_active_pods", Labels: []string{"static"}},
	{Name: "kubelet_working_pods", Labels: []string{"lifecycle", "config", "static"}},
	{Name: "kubelet_mirror_pods"},
}

var (
	descName   = regexp.MustCompile(`^Desc\{fqName: "([^"]*)"`)
	descLabels = regexp.MustCompile(`variableLabels: \{([^}]*)\}\}$`)
	constraint = regexp.MustCompile(`^c\((.*)\)$`)
)

// RegisteredMetrics are the metric names in registry, each with its variable label names: what
// every collector registered there describes. Vectors without a child yet do not show in a
// Gather, so the collectors are read from the prometheus.Registry itself (its unexported
// collectorsByID, unchanged in client_golang 1.19-1.24) and asked to Describe themselves.
func RegisteredMetrics(registerer prometheus.Registerer) (map[string][]string, error) {
	registry, ok := registerer.(*prometheus.Registry)
	if !ok {
		return nil, fmt.Errorf("registerer is a %T, not a *prometheus.Registry", registerer)
	}
	field := reflect.ValueOf(registry).Elem().FieldByName("collectorsByID")
	if !field.IsValid() {
		return nil, fmt.Errorf("prometheus.Registry has no collectorsByID field in this client_golang")
	}
	collectors := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Interface().(map[uint64]prometheus.Collector)
	descs := make(chan *prometheus.Desc, 64)
	go func() {
		for _, collector := range collectors {
			collector.Describe(descs)
		}
		close(descs)
	}()
	metrics := map[string][]string{}
	for desc := range descs {
		text := desc.String()
		name := descName.FindStringSubmatch(text)
		labels := descLabels.FindStringSubmatch(text)
		if name == nil || labels == nil {
			return nil, fmt.Errorf("unexpected Desc format: %s", text)
		}
		names := []string{}
		for _, label := range strings.Split(labels[1], ",") {
			if label == "" {
				continue
			}
			if m := constraint.FindStringSubmatch(label); m != nil {
				label = m[1]
			}
			names = append(names, label)
		}
		sort.Strings(names)
		metrics[name[1]] = names
	}
	return metrics, nil
}

// MissingLabels are the labels of want that the registered labels lack.
func MissingLabels(want []string, registered []string) []string {
	missing := []string{}
	for _, label := range want {
		if !slices.Contains(registered, label) {
			missing = append(missing, label)
		}
	}
	return missing
}
