package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/sluice-api/sluice/client"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // Sluice answered an error, the run failed, or there was no answer
	exitUsage = 2 // the command line is wrong
)

const usageText = `usage: sluice [-url URL] COMMAND [flags] [args]

Commands:
  run [flags] [TEXT]   run TEXT (or standard input, when TEXT is absent or "-") through a
                       pipeline and print the answer as JSON; for a duplicate (a repeated
                       --idempotency-key) that is trace_id, status and request_id
  services [NAME]      list the services, or print NAME's descriptor as JSON
  usage                print the account's month to date as JSON

The API key comes from SLUICE_KEY. The API is at -url, else SLUICE_URL, else ` + client.DefaultBaseURL + `.

run flags:
  --step [ID=]SERVICE[:PARAM=JSON[,PARAM=JSON...]]
        a step, repeatable, run in order; param values are JSON, e.g.
          --step governance.pii.redact:entities='["name","email"]',mask='"#"'
        the param stop_if is the step's halting condition, e.g.
          --step guard=security.jailbreak.shield:stop_if='{"verdict":"flag"}'
        without ID= the id is the service's last name part (redact, shield, ...)
  --pipeline FILE
        the steps as JSON: an array of {"id", "service", "params", "stop_if"}, or an object
        with such an array in "pipeline"
  --request-id ID        your correlation id, echoed in the answer
  --idempotency-key KEY  send the run under KEY (default: a random key, so a retry after a
                         lost answer is never billed twice)
  --exact                send standard input as it is; without it, one trailing newline
                         ("\n" or "\r\n", as echo and editors add) is dropped first

Exit status: 0 when the run completed or halted, 1 when it failed or Sluice answered an error
(the message is on standard error), 2 for a wrong command line.
`

// run is the command: args without the program name.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("sluice", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", "", "")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp) || err == nil && slices.Contains([]string{"help", "-h", "--help"}, fs.Arg(0)) ||
		err == nil && fs.NArg() > 1 && slices.Contains([]string{"-h", "--help"}, fs.Arg(1)):
		fmt.Fprint(stdout, usageText)
		return exitOK
	case err != nil:
		return usageError(stderr, err)
	case fs.NArg() == 0:
		return usageError(stderr, errors.New("no command"))
	}
	if *baseURL == "" {
		*baseURL = getenv("SLUICE_URL")
	}
	if *baseURL == "" {
		*baseURL = client.DefaultBaseURL
	}
	key := getenv("SLUICE_KEY")
	if key == "" {
		fmt.Fprintln(stderr, "sluice: set SLUICE_KEY to your API key (make run prints one, or create one in the dashboard)")
		return exitUsage
	}
	c := client.New(key, client.WithBaseURL(*baseURL), client.WithUserAgent("sluice-cli"))
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	switch cmd {
	case "run":
		return runCommand(ctx, c, rest, stdin, stdout, stderr)
	case "services":
		return servicesCommand(ctx, c, rest, stdout, stderr)
	case "usage":
		if len(rest) != 0 {
			return usageError(stderr, errors.New("usage takes no arguments"))
		}
		u, err := c.Usage(ctx)
		if err != nil {
			return apiError(stderr, err)
		}
		return printJSON(stdout, stderr, u)
	}
	return usageError(stderr, fmt.Errorf("unknown command %q", cmd))
}

// stepFlags collects --step values.
type stepFlags []string

func (s *stepFlags) String() string     { return strings.Join(*s, " ") }
func (s *stepFlags) Set(v string) error { *s = append(*s, v); return nil }

func runCommand(ctx context.Context, c *client.Client, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sluice run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var steps stepFlags
	fs.Var(&steps, "step", "")
	pipelineFile := fs.String("pipeline", "", "")
	var req client.RunRequest
	fs.StringVar(&req.RequestID, "request-id", "", "")
	fs.StringVar(&req.IdempotencyKey, "idempotency-key", "", "")
	exact := fs.Bool("exact", false, "")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, err)
	}
	switch {
	case len(steps) > 0 && *pipelineFile != "":
		return usageError(stderr, errors.New("give the pipeline as --step flags or as --pipeline FILE, not both"))
	case *pipelineFile != "":
		b, err := os.ReadFile(*pipelineFile)
		if err != nil {
			return usageError(stderr, err)
		}
		if req.Pipeline, err = parsePipeline(b); err != nil {
			return usageError(stderr, fmt.Errorf("%s: %w", *pipelineFile, err))
		}
	case len(steps) > 0:
		var err error
		if req.Pipeline, err = parseSteps(steps); err != nil {
			return usageError(stderr, err)
		}
	default:
		return usageError(stderr, errors.New("run needs a pipeline: --step SERVICE (repeatable) or --pipeline FILE"))
	}
	text, err := inputText(fs.Args(), stdin, *exact)
	if err != nil {
		return usageError(stderr, err)
	}
	req.Input = client.Text(text)

	resp, err := c.Run(ctx, req)
	if resp != nil {
		var answer any = resp
		if resp.Status == client.StatusDuplicate {
			answer = duplicateAnswer{RequestID: resp.RequestID, TraceID: resp.TraceID, Status: resp.Status}
		}
		if code := printJSON(stdout, stderr, answer); code != exitOK {
			return code
		}
	}
	if err != nil {
		return apiError(stderr, err)
	}
	return exitOK
}

// duplicateAnswer is what Sluice answers for a duplicate (DuplicateResponse in the OpenAPI
// document). Nothing ran, so there is no output, result, usage or audit to print, and printing
// the whole RunResponse would show zero values that Sluice never sent.
type duplicateAnswer struct {
	RequestID string `json:"request_id,omitempty"`
	TraceID   string `json:"trace_id"`
	Status    string `json:"status"`
}

// inputText is the text argument, or standard input when there is none or it is "-". Unless
// exact is set, standard input loses one trailing newline ("\n" or "\r\n"): the one echo, a
// here-string or an editor ends the text with, which would otherwise be billed and kept in
// the output. A TEXT argument is always sent as given.
func inputText(args []string, stdin io.Reader, exact bool) (string, error) {
	switch {
	case len(args) > 1:
		return "", errors.New("run takes one TEXT argument (quote it), or reads standard input")
	case len(args) == 1 && args[0] != "-":
		return args[0], nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	if !utf8.Valid(b) {
		return "", errors.New("standard input is not UTF-8 text")
	}
	if !exact {
		b = trimNewline(b)
	}
	return string(b), nil
}

// trimNewline drops one trailing "\n" or "\r\n" from b.
func trimNewline(b []byte) []byte {
	if b, ok := bytes.CutSuffix(b, []byte("\n")); ok {
		b, _ = bytes.CutSuffix(b, []byte("\r"))
		return b
	}
	return b
}

// parsePipeline reads a pipeline file: an array of steps, or an object with one in "pipeline".
func parsePipeline(b []byte) ([]client.Step, error) {
	var steps []client.Step
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj struct {
			Pipeline []client.Step `json:"pipeline"`
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, err
		}
		steps = obj.Pipeline
	} else if err := json.Unmarshal(trimmed, &steps); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, errors.New("no steps")
	}
	return steps, nil
}

// parseSteps turns --step values into steps, naming those without an id after their service.
func parseSteps(specs []string) ([]client.Step, error) {
	steps := make([]client.Step, 0, len(specs))
	used := map[string]int{}
	for _, spec := range specs {
		st, err := parseStep(spec)
		if err != nil {
			return nil, fmt.Errorf("--step %s: %w", spec, err)
		}
		if st.ID == "" {
			name := st.Service[strings.LastIndexByte(st.Service, '.')+1:]
			used[name]++
			st.ID = name
			if n := used[name]; n > 1 {
				st.ID = name + "-" + strconv.Itoa(n)
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// parseStep reads [ID=]SERVICE[:PARAM=JSON[,PARAM=JSON...]]. Each value is read as one JSON
// value, so it may itself hold commas, colons and equals signs.
func parseStep(spec string) (client.Step, error) {
	var st client.Step
	head, rest, hasParams := strings.Cut(spec, ":")
	if id, service, ok := strings.Cut(head, "="); ok {
		st.ID, st.Service = id, service
		if id == "" {
			return st, errors.New("empty step id before '='")
		}
	} else {
		st.Service = head
	}
	if st.Service == "" {
		return st, errors.New("no service name")
	}
	if !hasParams {
		return st, nil
	}
	for {
		name, value, ok := strings.Cut(rest, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, ",:") {
			return st, fmt.Errorf("want PARAM=JSON at %q", rest)
		}
		dec := json.NewDecoder(strings.NewReader(value))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return st, fmt.Errorf("param %s: the value is not JSON (%v); strings need their quotes: %s='\"...\"'", name, err, name)
		}
		if name == "stop_if" {
			raw, _ := json.Marshal(v)
			st.StopIf = &client.StopIf{}
			dc := json.NewDecoder(bytes.NewReader(raw))
			dc.DisallowUnknownFields()
			if err := dc.Decode(st.StopIf); err != nil {
				return st, fmt.Errorf("stop_if: %w", err)
			}
		} else {
			if st.Params == nil {
				st.Params = map[string]any{}
			}
			if _, dup := st.Params[name]; dup {
				return st, fmt.Errorf("param %s given twice", name)
			}
			st.Params[name] = v
		}
		rest = strings.TrimLeft(value[dec.InputOffset():], " ")
		if rest == "" {
			return st, nil
		}
		if rest[0] != ',' {
			return st, fmt.Errorf("param %s: want ',' or the end after its value, not %q", name, rest)
		}
		rest = rest[1:]
	}
}

func servicesCommand(ctx context.Context, c *client.Client, args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		l, err := c.Services(ctx)
		if err != nil {
			return apiError(stderr, err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICE\tKIND\tVERSION\tPARAMS")
		for _, d := range l.Services {
			params := make([]string, 0, len(d.Params))
			for p := range d.Params {
				params = append(params, p)
			}
			slices.Sort(params)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.Name, d.Kind, d.Version, strings.Join(params, ", "))
		}
		if err := tw.Flush(); err != nil {
			fmt.Fprintln(stderr, "sluice:", err)
			return exitError
		}
		return exitOK
	case 1:
		d, err := c.Service(ctx, args[0])
		if err != nil {
			return apiError(stderr, err)
		}
		return printJSON(stdout, stderr, d)
	}
	return usageError(stderr, errors.New("services takes at most one NAME"))
}

func printJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(stderr, "sluice:", err)
		return exitError
	}
	return exitOK
}

// apiError reports err: Sluice's error with its code and trace id, a duplicate with what to do.
func apiError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, err)
	var dup *client.DuplicateError
	if errors.As(err, &dup) {
		fmt.Fprintln(stderr, "sluice: nothing ran now; to run the text again (billed again), use a new --idempotency-key or none")
	}
	return exitError
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "sluice: %v\n\n%s", err, usageText)
	return exitUsage
}
