package telemetry

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"lathe/config"
)

// settings is what [telemetry] and the OTEL_* variables ask for.
type settings struct {
	traces, metrics signal
	// resource holds the resource's attributes, service.name included.
	resource   map[string]string
	logContent bool
	// parent is the W3C traceparent the runs' spans are children of
	// (TRACEPARENT, which lathe eval gives the runs of its attempts), and
	// state its tracestate; empty for none.
	parent, state string
	// eval is the attempt a run of lathe eval is (lathe.eval.*), empty
	// for a run of anything else.
	eval map[string]string
}

// signal is where one signal (traces or metrics) goes.
type signal struct {
	exporters []string // otlp, console; none when empty
	protocol  string   // http/protobuf or grpc, for otlp
	url       string   // the endpoint, for otlp
	headers   map[string]string
	gzip      bool // compress what is sent
	// ca is the file of the certificates to trust (none: the system's),
	// cert and key the client's own, for mutual TLS.
	ca, cert, key string
	// temporality and histograms are the metrics' preferences, as
	// written in the variables (empty: the defaults).
	temporality, histograms string
}

func (s signal) has(exporter string) bool { return slices.Contains(s.exporters, exporter) }

// off reports whether nothing is exported at all.
func (s settings) off() bool { return len(s.traces.exporters) == 0 && len(s.metrics.exporters) == 0 }

// resolve works out the settings from the config: the variables win over
// the file, a signal's own variables over the generic ones. Telemetry is
// off unless an endpoint or an exporter is given (OTEL_SDK_DISABLED=true
// turns it off whatever is given). An unknown protocol or exporter, or an
// endpoint that is not a URL, is an error.
func resolve(c config.Telemetry) (settings, error) {
	env := c.Env
	var s settings
	if strings.EqualFold(strings.TrimSpace(env["OTEL_SDK_DISABLED"]), "true") {
		return s, nil
	}
	var err error
	if s.traces, err = resolveSignal(c, "TRACES", c.Traces, "/v1/traces"); err != nil {
		return s, err
	}
	if s.metrics, err = resolveSignal(c, "METRICS", c.Metrics, "/v1/metrics"); err != nil {
		return s, err
	}
	s.logContent = c.LogContent
	if v, ok := env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"]; ok {
		s.logContent = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if s.resource, err = resourceAttributes(c); err != nil {
		return s, err
	}
	s.parent, s.state = strings.TrimSpace(env["TRACEPARENT"]), strings.TrimSpace(env["TRACESTATE"])
	for _, k := range []string{"EXPERIMENT", "SUITE", "TASK", "ATTEMPT", "REP", "TRY"} {
		if v := env["LATHE_EVAL_"+k]; v != "" {
			if s.eval == nil {
				s.eval = map[string]string{}
			}
			s.eval["lathe.eval."+strings.ToLower(k)] = v
		}
	}
	return s, nil
}

// resolveSignal works out where one signal goes: name is its part of the
// variables' names (TRACES), file its exporter in [telemetry], path what
// an HTTP endpoint takes for it.
func resolveSignal(c config.Telemetry, name, file, path string) (signal, error) {
	env := c.Env
	exporterVar := "OTEL_" + name + "_EXPORTER"
	endpoint, own := env["OTEL_EXPORTER_OTLP_"+name+"_ENDPOINT"], true
	if endpoint == "" {
		endpoint, own = firstOf(env["OTEL_EXPORTER_OTLP_ENDPOINT"], c.Endpoint), false
	}
	sig := signal{protocol: firstOf(env["OTEL_EXPORTER_OTLP_"+name+"_PROTOCOL"], env["OTEL_EXPORTER_OTLP_PROTOCOL"],
		c.Protocol, config.ProtocolHTTP)}
	list := firstOf(env[exporterVar], file)
	if list == "" && endpoint != "" {
		list = config.ExporterOTLP
	}
	for e := range strings.SplitSeq(list, ",") {
		switch e = strings.TrimSpace(e); e {
		case "", config.ExporterNone:
		case config.ExporterOTLP, config.ExporterConsole:
			if !sig.has(e) {
				sig.exporters = append(sig.exporters, e)
			}
		default:
			return sig, fmt.Errorf("%s: unknown exporter %q: use otlp, console or none", exporterVar, e)
		}
	}
	if !sig.has(config.ExporterOTLP) {
		return sig, nil
	}
	if sig.protocol != config.ProtocolHTTP && sig.protocol != config.ProtocolGRPC {
		return sig, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not a protocol lathe speaks: use %s or %s",
			sig.protocol, config.ProtocolHTTP, config.ProtocolGRPC)
	}
	if endpoint == "" {
		// The SDK's default, as the specification has it.
		endpoint = "http://localhost:4318"
		if sig.protocol == config.ProtocolGRPC {
			endpoint = "http://localhost:4317"
		}
	}
	u, err := endpointURL(endpoint)
	if err != nil {
		return sig, err
	}
	if !own && sig.protocol == config.ProtocolHTTP {
		u.Path = strings.TrimSuffix(u.Path, "/") + path
	}
	sig.url = u.String()
	sig.headers = map[string]string{}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + name + "_HEADERS"} {
		h, err := parsePairs(v, env[v])
		if err != nil {
			return sig, err
		}
		maps.Copy(sig.headers, h)
	}
	switch c := strings.ToLower(firstOf(env["OTEL_EXPORTER_OTLP_"+name+"_COMPRESSION"], env["OTEL_EXPORTER_OTLP_COMPRESSION"])); c {
	case "gzip":
		sig.gzip = true
	case "", "none":
	default:
		return sig, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION: %q is not a compression lathe speaks: use gzip or none", c)
	}
	sig.ca = firstOf(env["OTEL_EXPORTER_OTLP_"+name+"_CERTIFICATE"], env["OTEL_EXPORTER_OTLP_CERTIFICATE"])
	sig.cert = firstOf(env["OTEL_EXPORTER_OTLP_"+name+"_CLIENT_CERTIFICATE"], env["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"])
	sig.key = firstOf(env["OTEL_EXPORTER_OTLP_"+name+"_CLIENT_KEY"], env["OTEL_EXPORTER_OTLP_CLIENT_KEY"])
	if (sig.cert == "") != (sig.key == "") {
		return sig, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together: set both or neither")
	}
	if name == "METRICS" {
		sig.temporality = strings.ToLower(firstOf(env["OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"]))
		if !slices.Contains([]string{"", "cumulative", "delta", "lowmemory"}, sig.temporality) {
			return sig, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: %q is not one: use cumulative, delta or lowmemory", sig.temporality)
		}
		sig.histograms = strings.ToLower(firstOf(env["OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION"]))
		if !slices.Contains([]string{"", "explicit_bucket_histogram", "base2_exponential_bucket_histogram"}, sig.histograms) {
			return sig, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION: %q is not one: use explicit_bucket_histogram or base2_exponential_bucket_histogram", sig.histograms)
		}
	}
	return sig, nil
}

// endpointURL parses a collector's endpoint; one without a scheme
// ("gpu-box:4317") is taken as http.
func endpointURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q is not an http:// or https:// URL", s)
	}
	return u, nil
}

// parsePairs reads the value of variable name as the OTEL_* variables
// write headers and attributes: key=value pairs separated by commas, the
// values URL-encoded.
func parsePairs(name, s string) (map[string]string, error) {
	out := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", name, pair)
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// resourceAttributes are the resource's attributes: [telemetry]'s, then
// OTEL_RESOURCE_ATTRIBUTES over them; service.name from service_name
// unless the attributes or OTEL_SERVICE_NAME give it ("lathe" when none
// does).
func resourceAttributes(c config.Telemetry) (map[string]string, error) {
	out := maps.Clone(c.ResourceAttributes)
	if out == nil {
		out = map[string]string{}
	}
	if c.ServiceName != "" {
		out["service.name"] = c.ServiceName
	}
	env, err := parsePairs("OTEL_RESOURCE_ATTRIBUTES", c.Env["OTEL_RESOURCE_ATTRIBUTES"])
	if err != nil {
		return nil, err
	}
	maps.Copy(out, env)
	if v := strings.TrimSpace(c.Env["OTEL_SERVICE_NAME"]); v != "" {
		out["service.name"] = v
	}
	if out["service.name"] == "" {
		out["service.name"] = "lathe"
	}
	return out, nil
}

// firstOf is the first of vs that is not blank, trimmed.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
