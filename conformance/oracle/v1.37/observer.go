package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
)

// 1.37 passes a logger to PodConfig.SeenAllSources and to the startup SLI observer.
const (
	seenAllSourcesLoggerParam = true
	observerLoggerParam       = true
)

func seenAllSources(c *config.PodConfig, logger klog.Logger, seen sets.Set[string]) bool {
	return c.SeenAllSources(logger, seen)
}

// noopObserver stands in for the kubelet's pod startup latency tracker: NewPodConfig's observer
// parameter has an unexported interface type, and podStorage calls it on every new api pod.
type noopObserver struct{}

func (noopObserver) ObservedPodOnWatch(klog.Logger, *v1.Pod, time.Time) {}
