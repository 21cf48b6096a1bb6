package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
)

// 1.36 passes no logger to PodConfig.SeenAllSources nor to the startup SLI observer.
const (
	seenAllSourcesLoggerParam = false
	observerLoggerParam       = false
)

func seenAllSources(c *config.PodConfig, _ klog.Logger, seen sets.Set[string]) bool {
	return c.SeenAllSources(seen)
}

// noopObserver stands in for the kubelet's pod startup latency tracker: NewPodConfig's observer
// parameter has an unexported interface type, and podStorage calls it on every new api pod.
type noopObserver struct{}

func (noopObserver) ObservedPodOnWatch(*v1.Pod, time.Time) {}
