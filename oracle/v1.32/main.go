// The adapter of the 1.32-1.34 oracles (v1.33/main.go and v1.34/main.go link to this file: the
// pkg/kubelet/config API the oracle calls is the same in the three, checked against each by
// their TestAdapterMatchesSource): notification modes, SET, interface{} channels, no loggers.
package main

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"podconfig-exporter/oracle/driver"
)

// The unexported functions the kubelet's sources run, reached by go:linkname (a pull of a
// non-standard-library symbol, which the linker accepts without -checklinkname=0). Pointers to
// the unexported receiver types are unsafe.Pointer; a channel is one pointer, so is its type here.

//go:linkname newSourceFile k8s.io/kubernetes/pkg/kubelet/config.newSourceFile
func newSourceFile(path string, nodeName types.NodeName, period time.Duration, updates unsafe.Pointer) unsafe.Pointer

//go:linkname listConfig k8s.io/kubernetes/pkg/kubelet/config.(*sourceFile).listConfig
func listConfig(s unsafe.Pointer) error

//go:linkname extractFromURL k8s.io/kubernetes/pkg/kubelet/config.(*sourceURL).extractFromURL
func extractFromURL(s unsafe.Pointer) error

//go:linkname storageMerge k8s.io/kubernetes/pkg/kubelet/config.(*podStorage).Merge
func storageMerge(s unsafe.Pointer, source string, change interface{}) error

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
	return driver.Facts{Modes: []string{"incremental", "snapshot", "snapshotAndUpdates"}, SourceUpdateHasOp: true}
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

func (adapter) ListFile(path, nodeName string, updates unsafe.Pointer, _ klog.Logger) error {
	return listConfig(newSourceFile(path, types.NodeName(nodeName), fileCheckFrequency, updates))
}

func (adapter) ExtractFromURL(s unsafe.Pointer, _ klog.Logger) error { return extractFromURL(s) }

func (adapter) NewSourceApiserver(_ klog.Logger, client kubernetes.Interface, nodeName string, nodeHasSynced func() bool, updates reflect.Value) {
	driver.Call(config.NewSourceApiserver, client, types.NodeName(nodeName), nodeHasSynced, updates)
}

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
	return storageMerge(driver.FieldPointer(c.config, "pods"), source, update)
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
