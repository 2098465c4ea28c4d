// Package param describes the typed parameters that ops declare and that
// spec files set: their types, defaults, units and the parsers for sizes.
//
// It depends on the standard library only, so that both spec (which decodes
// what a user wrote) and ops (which uses the values) can share it.
package param

import (
	"fmt"
	"time"
)

// Type is the type of a parameter value.
type Type int

// The parameter types. The Go type of a value in Values is given beside each.
const (
	Number    Type = iota // float64
	Int                   // int64
	String                // string
	Bool                  // bool
	Size                  // int64 bytes; written "16B", "1MB" (1024-based), "4KiB" or a number
	Duration              // time.Duration; written in Go syntax, "300us"
	Strings               // []string
	StringMap             // map[string]string
)

var typeNames = [...]string{"number", "int", "string", "bool", "size", "duration", "list(string)", "map(string)"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Param declares one parameter of an op.
type Param struct {
	Name     string
	Type     Type
	Default  any // a value of Type's Go type; nil when Required or when absence means "not set"
	Required bool
	Unit     string   // "bytes", "ns", "requests"; shown by `specrun ops`
	Doc      string   // one sentence
	Enum     []string // allowed values of a String parameter
	Positive bool     // a Number, Int, Size or Duration that must be > 0
	Max      int64    // when not zero, the largest value an Int may take
}

// Values holds an op instance's parameters, keyed by name, with defaults
// already applied. Each value has the Go type of its Param's Type.
type Values map[string]any

// Has reports whether name is set.
func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

// Int returns an Int (or Size) parameter.
func (v Values) Int(name string) int64 {
	switch x := v[name].(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case int:
		return int64(x)
	}
	return 0
}

// Size returns a Size parameter in bytes.
func (v Values) Size(name string) int64 { return v.Int(name) }

// Float returns a Number parameter.
func (v Values) Float(name string) float64 {
	switch x := v[name].(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return 0
}

// String returns a String parameter.
func (v Values) String(name string) string { s, _ := v[name].(string); return s }

// Bool returns a Bool parameter.
func (v Values) Bool(name string) bool { b, _ := v[name].(bool); return b }

// Duration returns a Duration parameter.
func (v Values) Duration(name string) time.Duration { d, _ := v[name].(time.Duration); return d }

// Strings returns a Strings parameter.
func (v Values) Strings(name string) []string { s, _ := v[name].([]string); return s }

// StringMap returns a StringMap parameter.
func (v Values) StringMap(name string) map[string]string {
	m, _ := v[name].(map[string]string)
	return m
}
