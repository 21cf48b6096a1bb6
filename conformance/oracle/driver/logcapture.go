package driver

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
)

// capture records what the kubelet's code logs, so refusals are reported in the kubelet's own
// words. It is installed as klog's logger (klog.SetLogger) and passed wherever a version takes a
// logger parameter. V(0) only, as a kubelet at its default verbosity writes.
type capture struct {
	mu      sync.Mutex
	entries []LogEntry
	// stream, when set, receives each record instead of the batch (the api mode, which has no
	// requests to attach records to, writes them to stderr).
	stream func(LogEntry)
}

// take returns the records since the last take and starts a new batch.
func (c *capture) take() []LogEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.entries
	c.entries = nil
	if got == nil {
		return []LogEntry{}
	}
	return got
}

func (c *capture) add(entry LogEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream != nil {
		c.stream(entry)
		return
	}
	c.entries = append(c.entries, entry)
}

// Logger is a logr.Logger writing into c.
func (c *capture) Logger() logr.Logger {
	return logr.New(&captureSink{capture: c})
}

type captureSink struct {
	capture *capture
	name    string
	values  []any
}

func (s *captureSink) Init(logr.RuntimeInfo) {}

func (s *captureSink) Enabled(level int) bool { return level <= 0 }

func (s *captureSink) Info(level int, msg string, keysAndValues ...any) {
	s.capture.add(s.entry("info", msg, nil, keysAndValues))
}

func (s *captureSink) Error(err error, msg string, keysAndValues ...any) {
	var text *string
	if err != nil {
		e := err.Error()
		text = &e
	}
	s.capture.add(s.entry("error", msg, text, keysAndValues))
}

func (s *captureSink) entry(level, msg string, err *string, keysAndValues []any) LogEntry {
	values := map[string]string{}
	all := append(append([]any{}, s.values...), keysAndValues...)
	for i := 0; i+1 < len(all); i += 2 {
		values[fmt.Sprint(all[i])] = fmt.Sprint(all[i+1])
	}
	if s.name != "" {
		values["logger"] = s.name
	}
	if len(values) == 0 {
		values = nil
	}
	return LogEntry{Level: level, Msg: msg, Error: err, Values: values}
}

func (s *captureSink) WithValues(keysAndValues ...any) logr.LogSink {
	return &captureSink{capture: s.capture, name: s.name, values: append(append([]any{}, s.values...), keysAndValues...)}
}

func (s *captureSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "/" + name
	}
	return &captureSink{capture: s.capture, name: name, values: s.values}
}

// fileErrors picks the file source's error records that name a path.
func fileErrors(logs []LogEntry) []FileError {
	errs := []FileError{}
	for _, entry := range logs {
		path, ok := entry.Values["path"]
		if entry.Level != "error" || !ok {
			continue
		}
		errs = append(errs, FileError{Path: path, Error: entry.Error, Msg: entry.Msg})
	}
	return errs
}
