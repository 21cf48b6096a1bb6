package driver

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
)

// sourceChan is a channel of the element type a version's sources send on, read back by reflect
// so one reader serves kubetypes.PodUpdate in an interface{} (up to 1.35) and sourceUpdate (1.36+);
// it also reads PodConfig's own updates channel (kubetypes.PodUpdate).
type sourceChan struct {
	ch  reflect.Value
	ops []Op
}

// Every source sends at most one update per list or poll; the buffer only has to hold that.
const sourceChanBuffer = 16

func newSourceChan(elem reflect.Type, ops []Op) sourceChan {
	return sourceChan{ch: reflect.MakeChan(reflect.ChanOf(reflect.BothDir, elem), sourceChanBuffer), ops: ops}
}

// decode turns one received element into an Update; source names the sender when the element
// does not (sourceUpdate has only Pods).
func (c sourceChan) decode(v reflect.Value, source string) Update {
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	update := Update{Source: source, Pods: v.FieldByName("Pods").Interface().([]*v1.Pod)}
	if op := v.FieldByName("Op"); op.IsValid() {
		update.Op = opName(c.ops, op.Int())
	}
	if from := v.FieldByName("Source"); from.IsValid() {
		update.Source = from.String()
	}
	return update
}

// drain reads what is buffered without waiting.
func (c sourceChan) drain(source string) []Update {
	sent := []Update{}
	for {
		v, ok := c.ch.TryRecv()
		if !ok {
			return sent
		}
		sent = append(sent, c.decode(v, source))
	}
}
