package driver

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
)

// Recorder is the EventRecorder handed to NewPodConfig: it keeps the events the config records
// (the kubelet's would post them to the API server) so a merge step can report them.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

var _ record.EventRecorderLogger = (*Recorder)(nil)

func (r *Recorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.events
	r.events = nil
	if got == nil {
		return []Event{}
	}
	return got
}

func (r *Recorder) Event(object runtime.Object, eventtype, reason, message string) {
	name := ""
	if accessor, err := meta.Accessor(object); err == nil {
		name = accessor.GetNamespace() + "/" + accessor.GetName()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{Object: name, Type: eventtype, Reason: reason, Message: message})
}

func (r *Recorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *Recorder) AnnotatedEventf(object runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.Eventf(object, eventtype, reason, messageFmt, args...)
}

func (r *Recorder) WithLogger(klog.Logger) record.EventRecorderLogger { return r }
