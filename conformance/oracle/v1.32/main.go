// The adapter of the 1.32-1.35 oracles, the minors with notification modes, SET and interface{}
// channels (v1.33, v1.34 and v1.35 link to this file; each minor's sources.go holds the calls
// whose signatures differ: from 1.35 the sources and podStorage.Merge take a logger).
package main

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"podconfig-exporter/oracle/driver"
)

//go:linkname storageSeenSources k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).seenSources
func storageSeenSources(s unsafe.Pointer, sources ...string) bool

// fileCheckFrequency is the kubelet's default --file-check-frequency; listConfig never reads it.
const fileCheckFrequency = 20 * time.Second

var modes = map[string]config.PodConfigNotificationMode{
	"incremental":        config.PodConfigNotificationIncremental,
	"snapshot":           config.PodConfigNotificationSnapshot,
	"snapshotAndUpdates": config.PodConfigNotificationSnapshotAndUpdates,
}

type adapter struct{}

func (adapter) Facts() driver.Facts {
	return driver.Facts{
		Modes:             []string{"incremental", "snapshot", "snapshotAndUpdates"},
		SourceUpdateHasOp: true,
		SourceLoggerParam: sourceLoggerParam,
	}
}

func (adapter) Ops() []driver.Op {
	return []driver.Op{
		{Name: "SET", Value: int64(kubetypes.SET)},
		{Name: "ADD", Value: int64(kubetypes.ADD)},
		{Name: "DELETE", Value: int64(kubetypes.DELETE)},
		{Name: "REMOVE", Value: int64(kubetypes.REMOVE)},
		{Name: "UPDATE", Value: int64(kubetypes.UPDATE)},
		{Name: "RECONCILE", Value: int64(kubetypes.RECONCILE)},
	}
}

func (adapter) SourceChanElem() reflect.Type { return reflect.TypeFor[interface{}]() }

// noopObserver stands in for the kubelet's pod startup latency tracker: NewPodConfig's observer
// parameter has an unexported interface type, and podStorage calls it on every new api pod.
type noopObserver struct{}

func (noopObserver) ObservedPodOnWatch(*v1.Pod, time.Time) {}

type podConfig struct {
	config *config.PodConfig
	ctx    context.Context
	cancel context.CancelFunc
}

func (adapter) NewPodConfig(mode string, recorder *driver.Recorder, logger klog.Logger) (driver.PodConfig, error) {
	m, ok := modes[mode]
	if !ok {
		return nil, fmt.Errorf("unknown mode %q", mode)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	return &podConfig{config: config.NewPodConfig(m, recorder, noopObserver{}), ctx: ctx, cancel: cancel}, nil
}

func (c *podConfig) Channel(source string) { c.config.Channel(c.ctx, source) }

func (c *podConfig) Merge(source string, op int64, pods []*v1.Pod) error {
	update := kubetypes.PodUpdate{Pods: pods, Op: kubetypes.PodOperation(op), Source: source}
	return merge(driver.FieldPointer(c.config, "pods"), c.ctx, source, update)
}

func (c *podConfig) Updates() any { return c.config.Updates() }

func (c *podConfig) StorageSeen(source string) bool {
	return storageSeenSources(driver.FieldPointer(c.config, "pods"), source)
}

func (c *podConfig) SeenAllSources(seen []string) bool {
	return c.config.SeenAllSources(sets.New(seen...))
}

func (c *podConfig) Close() { c.cancel() }

func main() { driver.Main(adapter{}) }
