// Package metrics records Sluice's operational metrics as CloudWatch Embedded Metric Format (EMF)
// lines. In Lambda the lines go to stdout, CloudWatch Logs receives them, and CloudWatch extracts
// the metrics; no API call is made at request time.
//
// What a Recorder writes is fixed by its types: route, status, error code and service name
// (identifiers, checked against a narrow character set and a length cap), counts and durations.
// There is no field for text of any kind, so nothing derived from a request's text other than
// counts can reach the metrics (docs/api.md, "The audit trace").
//
// Each run produces one document with the metrics Runs, Steps, BilledCharacters (Count) and
// Latency (Milliseconds), in the dimension sets [Route] and [Route, Status], and one document per
// executed step with ServiceLatency (Milliseconds) in the dimension set [Service]. The constant
// dimensions given to New (say Region) are added to the front of every dimension set.
package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Run statuses, the values of RunMetrics.Status. Any other value is recorded as "unknown".
const (
	StatusCompleted = "completed"
	StatusHalted    = "halted"
	StatusFailed    = "failed"
	StatusDuplicate = "duplicate"
	StatusRejected  = "rejected"
)

// Unknown replaces an identifier (route, status, code, service) that is empty or not a plain
// identifier, so that no free text and no unbounded set of values reaches CloudWatch.
const Unknown = "unknown"

// maxIdent is the longest identifier recorded as given.
const maxIdent = 64

// Names of the dimensions, metrics and properties a Recorder writes.
const (
	dimRoute   = "Route"
	dimStatus  = "Status"
	dimService = "Service"

	metricRuns           = "Runs"
	metricSteps          = "Steps"
	metricBilled         = "BilledCharacters"
	metricLatency        = "Latency"
	metricServiceLatency = "ServiceLatency"

	propHTTPStatus = "HTTPStatus"
	propCode       = "Code"

	unitCount        = "Count"
	unitMilliseconds = "Milliseconds"
)

// reserved are the top-level names a Recorder writes itself; a constant dimension may not use one.
var reserved = []string{
	"_aws", dimRoute, dimStatus, dimService,
	metricRuns, metricSteps, metricBilled, metricLatency, metricServiceLatency,
	propHTTPStatus, propCode,
}

// RunMetrics describes one request to POST /v1/run (or another route) once it was answered.
type RunMetrics struct {
	// Route names the endpoint, e.g. "POST /v1/run" or "/v1/services/{name}" (the template, never
	// the concrete path).
	Route string
	// Status is one of the Status constants.
	Status string
	// HTTPStatus is the response's status code.
	HTTPStatus int
	// Code is the error code (errcode), empty for a run without one.
	Code string
	// Steps is the number of steps that ran.
	Steps int
	// BilledCharacters is the characters billed for the run.
	BilledCharacters int64
	// Latency is the time from receipt to response.
	Latency time.Duration
	// StepLatencies has one entry per executed step.
	StepLatencies []StepLatency
}

// StepLatency is how long one step's service took.
type StepLatency struct {
	// Service is the service name, e.g. "governance.pii.redact".
	Service string
	// Latency is the step's running time.
	Latency time.Duration
}

// Recorder writes EMF documents, one JSON object a line, to a writer. It is safe for concurrent
// use: the lines of one Run are written together, never interleaved with another Run's.
type Recorder struct {
	namespace string
	dimNames  []string // constant dimensions, sorted
	dimValues map[string]string
	now       func() time.Time

	mu sync.Mutex
	w  io.Writer
}

// Option configures a Recorder.
type Option func(*Recorder)

// WithClock sets the clock the documents' timestamps come from (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(r *Recorder) { r.now = now }
}

// New returns a Recorder writing to w under the CloudWatch namespace, with dims as constant
// dimensions of every metric (nil for none). dims is copied. New panics, as for any wiring error,
// if the namespace is empty, or a dimension's name or value is empty or its name is one the
// Recorder writes itself (Route, Status, Service, a metric name, HTTPStatus, Code, _aws).
func New(w io.Writer, namespace string, dims map[string]string, opts ...Option) *Recorder {
	if namespace == "" {
		panic("metrics: empty namespace")
	}
	for name, value := range dims {
		if name == "" || value == "" {
			panic(fmt.Sprintf("metrics: constant dimension %q has an empty name or value", name))
		}
		if slices.Contains(reserved, name) {
			panic(fmt.Sprintf("metrics: constant dimension %q collides with a name the recorder writes", name))
		}
	}
	r := &Recorder{
		namespace: namespace,
		dimNames:  slices.Sorted(maps.Keys(dims)),
		dimValues: maps.Clone(dims),
		now:       time.Now,
		w:         w,
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Run records one run: a document with its counts and latency, and a document per step with
// the step's service latency. Metrics are best effort: a write error is dropped, never returned
// to the request that is being measured.
func (r *Recorder) Run(m RunMetrics) {
	ts := r.now().UnixMilli()
	route, status := cleanRoute(m.Route), cleanStatus(m.Status)

	run := r.document(ts, []string{dimRoute}, []string{dimRoute, dimStatus})
	run.metric(metricRuns, unitCount, 1)
	run.metric(metricSteps, unitCount, max(m.Steps, 0))
	run.metric(metricBilled, unitCount, max(m.BilledCharacters, 0))
	run.metric(metricLatency, unitMilliseconds, millis(m.Latency))
	run.member(dimRoute, route)
	run.member(dimStatus, status)
	run.member(propHTTPStatus, m.HTTPStatus)
	if m.Code != "" {
		run.member(propCode, cleanIdent(m.Code))
	}

	line := run.appendJSON(nil)
	for _, s := range m.StepLatencies {
		step := r.document(ts, []string{dimService})
		step.metric(metricServiceLatency, unitMilliseconds, millis(s.Latency))
		step.member(dimService, cleanIdent(s.Service))
		line = step.appendJSON(line)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(line)
}

// document starts an EMF document whose dimension sets are sets, each after the constant
// dimensions, with the constant dimensions' values already among its members.
func (r *Recorder) document(ts int64, sets ...[]string) *document {
	d := &document{aws: awsBlock{Timestamp: ts, CloudWatchMetrics: []directive{{Namespace: r.namespace}}}}
	for _, set := range sets {
		d.aws.CloudWatchMetrics[0].Dimensions = append(d.aws.CloudWatchMetrics[0].Dimensions,
			append(slices.Clone(r.dimNames), set...))
	}
	for _, name := range r.dimNames {
		d.member(name, r.dimValues[name])
	}
	return d
}

// awsBlock is the EMF metadata object, the document's "_aws" member.
type awsBlock struct {
	Timestamp         int64       `json:"Timestamp"`
	CloudWatchMetrics []directive `json:"CloudWatchMetrics"`
}

// directive is one EMF metric directive.
type directive struct {
	Namespace  string             `json:"Namespace"`
	Dimensions [][]string         `json:"Dimensions"`
	Metrics    []metricDefinition `json:"Metrics"`
}

type metricDefinition struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// member is one top-level member of a document: a dimension value, metric value or property.
// Values are strings or numbers only, set by this package.
type member struct {
	name  string
	value any
}

// document is one EMF JSON object: "_aws" first, then the members in the order they were added.
type document struct {
	aws     awsBlock
	members []member
}

func (d *document) metric(name, unit string, value any) {
	d.aws.CloudWatchMetrics[0].Metrics = append(d.aws.CloudWatchMetrics[0].Metrics, metricDefinition{name, unit})
	d.member(name, value)
}

func (d *document) member(name string, value any) {
	d.members = append(d.members, member{name, value})
}

// appendJSON appends the document as one line of JSON (with its newline) to b.
func (d *document) appendJSON(b []byte) []byte {
	// Every value is a string, a number or a struct of them: Marshal cannot fail.
	aws, _ := json.Marshal(d.aws)
	b = append(b, `{"_aws":`...)
	b = append(b, aws...)
	for _, m := range d.members {
		v, _ := json.Marshal(m.value)
		b = append(b, ',')
		b = strconv.AppendQuote(b, m.name)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}', '\n')
}

// millis is d in (fractional) milliseconds, never negative.
func millis(d time.Duration) float64 {
	return float64(max(d, 0)) / float64(time.Millisecond)
}

func cleanStatus(s string) string {
	switch s {
	case StatusCompleted, StatusHalted, StatusFailed, StatusDuplicate, StatusRejected:
		return s
	}
	return Unknown
}

// cleanIdent returns s if it is a plain identifier (1 to 64 ASCII letters, digits and "_.-:/{}"),
// else Unknown.
func cleanIdent(s string) string {
	if s == "" || len(s) > maxIdent {
		return Unknown
	}
	for i := range len(s) {
		if !identByte(s[i]) {
			return Unknown
		}
	}
	return s
}

// cleanRoute accepts an identifier or a route key "METHOD /path" (an upper-case method, one
// space, an identifier), else it returns Unknown.
func cleanRoute(s string) string {
	if len(s) > maxIdent {
		return Unknown
	}
	if method, path, ok := strings.Cut(s, " "); ok {
		if method == "" || cleanIdent(path) == Unknown {
			return Unknown
		}
		for i := range len(method) {
			if method[i] < 'A' || method[i] > 'Z' {
				return Unknown
			}
		}
		return s
	}
	return cleanIdent(s)
}

func identByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '.', '-', ':', '/', '{', '}':
		return true
	}
	return false
}
