package driver

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Adapter is the thin per-minor half of an oracle: the calls into that release's
// pkg/kubelet/config whose shape changes between minors. Everything else lives here.
type Adapter interface {
	// Facts are this version's shape as its adapter is written against it (the version module's
	// TestAdapterMatchesSource checks them against the source). Version, Minor and Ops are
	// filled in by the driver.
	Facts() Facts
	// Ops are kubetypes.PodOperation's constants with their values, in declaration order.
	Ops() []Op
	// SourceChanElem is the element type of a source's channel: interface{} up to 1.35, the
	// unexported sourceUpdate from 1.36.
	SourceChanElem() reflect.Type
	// ListFile runs listConfig once on a fresh newSourceFile(path, nodeName, period, updates).
	ListFile(path, nodeName string, updates unsafe.Pointer, logger klog.Logger) error
	// ExtractFromURL runs the real (*sourceURL).extractFromURL on s (see NewSourceURL).
	ExtractFromURL(s unsafe.Pointer, logger klog.Logger) error
	// NewPodConfig is upstream's NewPodConfig in mode (ignored where modes are gone); logger is
	// the one its channels' context carries (klog.NewContext), as the kubelet's does.
	NewPodConfig(mode string, recorder *Recorder, logger klog.Logger) (PodConfig, error)
	// NewSourceApiserver starts upstream's api source sending on updates.
	NewSourceApiserver(logger klog.Logger, client kubernetes.Interface, nodeName string, nodeHasSynced func() bool, updates reflect.Value)
}

// Op is one kubetypes.PodOperation constant.
type Op struct {
	Name  string
	Value int64
}

// PodConfig is one upstream PodConfig as a merge request drives it.
type PodConfig interface {
	// Channel registers source as the kubelet does (PodConfig.Channel).
	Channel(source string)
	// Merge hands one update to the config's podStorage.Merge, the call the mux makes for each
	// update a source sends, synchronously so its emissions can be collected. op is the
	// PodOperation value; versions whose sources send no op ignore it.
	Merge(source string, op int64, pods []*v1.Pod) error
	// Updates is PodConfig.Updates(), the channel of kubetypes.PodUpdate it emits on.
	Updates() any
	// StorageSeen is podStorage.seenSources(source): the source has sent its first SET.
	StorageSeen(source string) bool
	// SeenAllSources is upstream's PodConfig.SeenAllSources(seen).
	SeenAllSources(seen []string) bool
	// Close stops the channels' goroutines.
	Close()
}

// Facts describe one version's pkg/kubelet/config; the info command reports them.
type Facts struct {
	Version string `json:"version"`
	Minor   string `json:"minor"`
	// Modes are the PodConfigNotificationMode values NewPodConfig takes ([] from 1.36).
	Modes []string `json:"modes"`
	// Ops are the kubetypes.PodOperation constants, in declaration order.
	Ops []string `json:"ops"`
	// SourceUpdateHasOp: sources send an op (SET) with their pods (false from 1.36).
	SourceUpdateHasOp bool `json:"sourceUpdateHasOp"`
	// SourceLoggerParam: the file, url and api sources take a klog.Logger (1.35+).
	SourceLoggerParam bool `json:"sourceLoggerParam"`
	// SeenAllSourcesLoggerParam: PodConfig.SeenAllSources takes a klog.Logger (1.37+).
	SeenAllSourcesLoggerParam bool `json:"seenAllSourcesLoggerParam"`
	// ObserverLoggerParam: the startup SLI observer's ObservedPodOnWatch takes a logger (1.37+).
	ObserverLoggerParam bool `json:"observerLoggerParam"`
	// NodeSyncWaitsForNode: the api source's nodeHasSynced is true only once this node's Node
	// object is in the informer's cache (pkg/kubelet/kubelet.go newNodeHasSyncedFunc, 1.37+),
	// not once the node informer has synced (an empty list included).
	NodeSyncWaitsForNode bool `json:"nodeSyncWaitsForNode"`
}

// KubernetesVersion is the version of k8s.io/kubernetes linked into this binary ("v1.32.13").
func KubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// FullFacts are adapter.Facts() with what the driver knows: version, minor, op names.
func FullFacts(adapter Adapter) Facts {
	facts := adapter.Facts()
	facts.Version = KubernetesVersion()
	facts.Minor = strings.Join(strings.SplitN(strings.TrimPrefix(facts.Version, "v"), ".", 3)[:2], ".")
	facts.Ops = []string{}
	for _, op := range adapter.Ops() {
		facts.Ops = append(facts.Ops, op.Name)
	}
	return facts
}

func opName(ops []Op, value int64) string {
	for _, op := range ops {
		if op.Value == value {
			return op.Name
		}
	}
	return fmt.Sprintf("PodOperation(%d)", value)
}

func opValue(ops []Op, name string) (int64, error) {
	for _, op := range ops {
		if op.Name == name {
			return op.Value, nil
		}
	}
	return 0, fmt.Errorf("unknown op %q (this version has %v)", name, ops)
}

// FieldPointer is the value of the unexported pointer field name of *obj (PodConfig.pods).
func FieldPointer(obj any, name string) unsafe.Pointer {
	field := reflect.ValueOf(obj).Elem().FieldByName(name)
	if !field.IsValid() || field.Kind() != reflect.Pointer {
		panic("no pointer field " + name + " in " + reflect.TypeOf(obj).String())
	}
	return field.UnsafePointer()
}

// Call calls fn with args converted to its parameter types: a reflect.Value argument is
// converted (a two-way channel to fn's send-only channel of an unexported element type).
func Call(fn any, args ...any) []reflect.Value {
	fv := reflect.ValueOf(fn)
	in := make([]reflect.Value, len(args))
	for i, arg := range args {
		v, ok := arg.(reflect.Value)
		if !ok {
			v = reflect.ValueOf(arg)
		}
		in[i] = v.Convert(fv.Type().In(i))
	}
	return fv.Call(in)
}

// SameLayout panics unless mirror has the fields of real, by name, type, offset and size: it
// guards the struct layouts the adapters mirror to call unexported upstream functions.
func SameLayout(real, mirror reflect.Type) {
	same := real.Size() == mirror.Size() && real.NumField() == mirror.NumField()
	for i := 0; same && i < real.NumField(); i++ {
		r, m := real.Field(i), mirror.Field(i)
		same = r.Name == m.Name && r.Type == m.Type && r.Offset == m.Offset
	}
	if !same {
		panic("layout of " + mirror.String() + " does not match upstream's " + real.String())
	}
}
