package driver

import (
	"encoding/json"

	v1 "k8s.io/api/core/v1"
)

// Request is one line on stdin; which fields matter depends on Cmd (see
// conformance/oracle/README.md).
type Request struct {
	Cmd        string     `json:"cmd"`
	ID         any        `json:"id,omitempty"`
	Path       string     `json:"path,omitempty"`
	NodeName   string     `json:"nodeName,omitempty"`
	Body       *string    `json:"body,omitempty"`
	BodyBase64 *string    `json:"bodyBase64,omitempty"`
	Status     int        `json:"status,omitempty"`
	Mode       string     `json:"mode,omitempty"`
	Sources    []string   `json:"sources,omitempty"`
	Steps      []StepSend `json:"steps,omitempty"`
}

// StepSend is one update a merge request sends on a source's channel.
type StepSend struct {
	Source string            `json:"source"`
	Op     string            `json:"op,omitempty"`
	Pods   []json.RawMessage `json:"pods"`
}

// Update is what a source sent on its channel, or what PodConfig emitted on its updates channel.
// Op is empty where the version's sourceUpdate has none (1.36+ sources).
type Update struct {
	Op     string    `json:"op,omitempty"`
	Source string    `json:"source"`
	Pods   []*v1.Pod `json:"pods"`
}

// MarshalJSON writes a nil pod slice as [] : the kubelet treats nil and empty alike (it only
// ever checks len), and one spelling spares every client a special case.
func (u Update) MarshalJSON() ([]byte, error) {
	type plain Update
	if u.Pods == nil {
		u.Pods = []*v1.Pod{}
	}
	return json.Marshal(plain(u))
}

// LogEntry is one record the kubelet's code logged while serving a request (V(0) and errors).
type LogEntry struct {
	Level  string            `json:"level"`
	Msg    string            `json:"msg"`
	Error  *string           `json:"error"`
	Values map[string]string `json:"values,omitempty"`
}

// FileError is an error-level log record of the file source that names a path: a manifest the
// directory listing skipped, with the kubelet's own error text (null for records without an err).
type FileError struct {
	Path  string  `json:"path"`
	Error *string `json:"error"`
	Msg   string  `json:"msg"`
}

// Event is one event the config recorded on a pod (filterInvalidPods' FailedValidation and the like).
type Event struct {
	Object  string `json:"object"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// MergeStep is what one step of a merge request produced.
type MergeStep struct {
	Emitted        []Update        `json:"emitted"`
	MergeError     *string         `json:"mergeError"`
	StorageSeen    map[string]bool `json:"storageSeen"`
	SeenAllSources bool            `json:"seenAllSources"`
	Events         []Event         `json:"events"`
	Logs           []LogEntry      `json:"logs"`
}
