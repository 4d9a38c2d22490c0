package otlp

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The messages are written field by field as opentelemetry-proto v1 has
// them (the field numbers below are its), the way the official exporters'
// transforms fill them: a zero scalar is left out, a field of a oneof or
// an optional one is written whenever it is set.

// field writes a nested message as field num: body appends its fields.
// The length goes in front once the body is written.
func field(b []byte, num fieldNum, body func([]byte) []byte) []byte {
	b = appendTag(b, num, bytesKind)
	start := len(b)
	b = body(b)
	n := len(b) - start
	size := sizeVarint(uint64(n))
	b = append(b, make([]byte, size)...)
	copy(b[start+size:], b[start:start+n])
	appendVarint(b[:start], uint64(n))
	return b
}

func str(b []byte, num fieldNum, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, num, bytesKind)
	return appendString(b, s)
}

func byteField(b []byte, num fieldNum, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = appendTag(b, num, bytesKind)
	return appendBytes(b, v)
}

func varint(b []byte, num fieldNum, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, varintKind)
	return appendVarint(b, v)
}

func fixed64(b []byte, num fieldNum, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed64Kind)
	return appendFixed64(b, v)
}

func fixed32(b []byte, num fieldNum, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed32Kind)
	return appendFixed32(b, v)
}

// double writes a double that has presence (a oneof's or an optional
// one): zero too.
func double(b []byte, num fieldNum, v float64) []byte {
	b = appendTag(b, num, fixed64Kind)
	return appendFixed64(b, math.Float64bits(v))
}

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

func count32(n int) uint64 { return uint64(min(max(0, n), math.MaxUint32)) }

// common.proto

func keyValues(b []byte, num fieldNum, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = keyValue(b, num, kv)
	}
	return b
}

func iterValues(b []byte, num fieldNum, it attribute.Iterator) []byte {
	for it.Next() {
		b = keyValue(b, num, it.Attribute())
	}
	return b
}

func keyValue(b []byte, num fieldNum, kv attribute.KeyValue) []byte {
	return field(b, num, func(b []byte) []byte {
		b = str(b, 1, string(kv.Key))
		return field(b, 2, func(b []byte) []byte { return anyValue(b, kv.Value) })
	})
}

// anyValue writes the fields of an AnyValue.
func anyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = appendTag(b, 2, varintKind)
		return appendVarint(b, encodeBool(v.AsBool()))
	case attribute.INT64:
		return intValue(b, v.AsInt64())
	case attribute.FLOAT64:
		return double(b, 4, v.AsFloat64())
	case attribute.STRING:
		return stringValue(b, v.AsString())
	case attribute.BYTESLICE:
		b = appendTag(b, 7, bytesKind)
		return appendBytes(b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return array(b, v.AsBoolSlice(), func(b []byte, x bool) []byte {
			b = appendTag(b, 2, varintKind)
			return appendVarint(b, encodeBool(x))
		})
	case attribute.INT64SLICE:
		return array(b, v.AsInt64Slice(), intValue)
	case attribute.FLOAT64SLICE:
		return array(b, v.AsFloat64Slice(), func(b []byte, x float64) []byte { return double(b, 4, x) })
	case attribute.STRINGSLICE:
		return array(b, v.AsStringSlice(), stringValue)
	case attribute.SLICE:
		return array(b, v.AsSlice(), anyValue)
	case attribute.MAP:
		return field(b, 6, func(b []byte) []byte { return keyValues(b, 1, v.AsMap()) })
	case attribute.EMPTY:
		return b
	default:
		return stringValue(b, "INVALID")
	}
}

func intValue(b []byte, v int64) []byte {
	b = appendTag(b, 3, varintKind)
	return appendVarint(b, uint64(v))
}

func stringValue(b []byte, s string) []byte {
	b = appendTag(b, 1, bytesKind)
	return appendString(b, s)
}

// array writes an ArrayValue of vs, each an AnyValue written by each.
func array[T any](b []byte, vs []T, each func([]byte, T) []byte) []byte {
	return field(b, 5, func(b []byte) []byte {
		for _, v := range vs {
			b = field(b, 1, func(b []byte) []byte { return each(b, v) })
		}
		return b
	})
}

func scope(b []byte, num fieldNum, s instrumentation.Scope) []byte {
	return field(b, num, func(b []byte) []byte {
		b = str(b, 1, s.Name)
		b = str(b, 2, s.Version)
		return iterValues(b, 3, s.Attributes.Iter())
	})
}

func resourceField(b []byte, num fieldNum, r *resource.Resource) []byte {
	return field(b, num, func(b []byte) []byte { return iterValues(b, 1, r.Iter()) })
}

// Traces: the body of an ExportTraceServiceRequest (trace_service.proto),
// the spans grouped by resource and scope in the order they come.
func Traces(spans []sdktrace.ReadOnlySpan) []byte {
	type group struct {
		res    *resource.Resource
		scopes []instrumentation.Scope
		spans  map[instrumentation.Scope][]sdktrace.ReadOnlySpan
	}
	var groups []*group
	byRes := map[attribute.Distinct]*group{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		key := s.Resource().Equivalent()
		g := byRes[key]
		if g == nil {
			g = &group{res: s.Resource(), spans: map[instrumentation.Scope][]sdktrace.ReadOnlySpan{}}
			byRes[key] = g
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		if _, ok := g.spans[sc]; !ok {
			g.scopes = append(g.scopes, sc)
		}
		g.spans[sc] = append(g.spans[sc], s)
	}
	var b []byte
	for _, g := range groups {
		b = field(b, 1, func(b []byte) []byte {
			b = resourceField(b, 1, g.res)
			for _, sc := range g.scopes {
				b = field(b, 2, func(b []byte) []byte {
					if sc != (instrumentation.Scope{}) {
						b = scope(b, 1, sc)
					}
					for _, s := range g.spans[sc] {
						b = field(b, 2, func(b []byte) []byte { return span(b, s) })
					}
					return str(b, 3, sc.SchemaURL)
				})
			}
			return str(b, 3, g.res.SchemaURL())
		})
	}
	return b
}

// span writes the fields of a Span (trace.proto).
func span(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = byteField(b, 1, tid[:])
	b = byteField(b, 2, sid[:])
	b = str(b, 3, sc.TraceState().String())
	if psid := s.Parent().SpanID(); psid.IsValid() {
		b = byteField(b, 4, psid[:])
	}
	b = str(b, 5, s.Name())
	b = varint(b, 6, uint64(s.SpanKind()))
	b = fixed64(b, 7, unixNano(s.StartTime()))
	b = fixed64(b, 8, unixNano(s.EndTime()))
	b = keyValues(b, 9, s.Attributes())
	b = varint(b, 10, count32(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = field(b, 11, func(b []byte) []byte {
			b = fixed64(b, 1, unixNano(e.Time))
			b = str(b, 2, e.Name)
			b = keyValues(b, 3, e.Attributes)
			return varint(b, 4, count32(e.DroppedAttributeCount))
		})
	}
	b = varint(b, 12, count32(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = field(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = byteField(b, 1, tid[:])
			b = byteField(b, 2, sid[:])
			b = keyValues(b, 4, l.Attributes)
			b = varint(b, 5, count32(l.DroppedAttributeCount))
			return fixed32(b, 6, flags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = varint(b, 14, count32(s.DroppedLinks()))
	st := s.Status()
	b = field(b, 15, func(b []byte) []byte {
		b = str(b, 2, st.Description)
		return varint(b, 3, uint64(statusCode(st.Code)))
	})
	return fixed32(b, 16, flags(sc.TraceFlags(), s.Parent()))
}

// flags are a span's or link's: the W3C trace flags, and whether its
// parent is remote, known.
func flags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	const hasIsRemote, isRemote = 0x100, 0x200
	f := uint32(tf) | hasIsRemote
	if parent.IsRemote() {
		f |= isRemote
	}
	return f
}

func statusCode(c codes.Code) int {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// Metrics: the body of an ExportMetricsServiceRequest
// (metrics_service.proto).
func Metrics(rm *metricdata.ResourceMetrics) []byte {
	return field(nil, 1, func(b []byte) []byte {
		b = resourceField(b, 1, rm.Resource)
		for _, sm := range rm.ScopeMetrics {
			b = field(b, 2, func(b []byte) []byte {
				b = scope(b, 1, sm.Scope)
				for _, m := range sm.Metrics {
					b = field(b, 2, func(b []byte) []byte { return metricFields(b, m) })
				}
				return str(b, 3, sm.Scope.SchemaURL)
			})
		}
		return str(b, 3, rm.Resource.SchemaURL())
	})
}

// metricFields writes the fields of a Metric (metrics.proto).
func metricFields(b []byte, m metricdata.Metrics) []byte {
	b = str(b, 1, m.Name)
	b = str(b, 2, m.Description)
	b = str(b, 3, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		b = field(b, 5, func(b []byte) []byte { return numberPoints(b, d.DataPoints) })
	case metricdata.Gauge[float64]:
		b = field(b, 5, func(b []byte) []byte { return numberPoints(b, d.DataPoints) })
	case metricdata.Sum[int64]:
		b = field(b, 7, func(b []byte) []byte { return sum(b, d) })
	case metricdata.Sum[float64]:
		b = field(b, 7, func(b []byte) []byte { return sum(b, d) })
	case metricdata.Histogram[int64]:
		b = field(b, 9, func(b []byte) []byte { return histogram(b, d) })
	case metricdata.Histogram[float64]:
		b = field(b, 9, func(b []byte) []byte { return histogram(b, d) })
	case metricdata.ExponentialHistogram[int64]:
		b = field(b, 10, func(b []byte) []byte { return expHistogram(b, d) })
	case metricdata.ExponentialHistogram[float64]:
		b = field(b, 10, func(b []byte) []byte { return expHistogram(b, d) })
	case metricdata.Summary:
		b = field(b, 11, func(b []byte) []byte { return summary(b, d) })
	}
	return b
}

// temporality is the AggregationTemporality of t: the SDK numbers them
// the other way round.
func temporality(t metricdata.Temporality) uint64 {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	}
	return 0
}

func sum[N int64 | float64](b []byte, s metricdata.Sum[N]) []byte {
	b = numberPoints(b, s.DataPoints)
	b = varint(b, 2, temporality(s.Temporality))
	return varint(b, 3, encodeBool(s.IsMonotonic))
}

// fieldNum writes a value of a oneof of as_double (dbl) and as_int (i).
func number[N int64 | float64](b []byte, v N, dbl, i fieldNum) []byte {
	switch x := any(v).(type) {
	case int64:
		b = appendTag(b, i, fixed64Kind)
		return appendFixed64(b, uint64(x))
	case float64:
		return double(b, dbl, x)
	}
	return b
}

func numberPoints[N int64 | float64](b []byte, points []metricdata.DataPoint[N]) []byte {
	for _, p := range points {
		b = field(b, 1, func(b []byte) []byte {
			b = fixed64(b, 2, unixNano(p.StartTime))
			b = fixed64(b, 3, unixNano(p.Time))
			b = number(b, p.Value, 4, 6)
			b = exemplars(b, 5, p.Exemplars)
			return iterValues(b, 7, p.Attributes.Iter())
		})
	}
	return b
}

func histogram[N int64 | float64](b []byte, h metricdata.Histogram[N]) []byte {
	for _, p := range h.DataPoints {
		b = field(b, 1, func(b []byte) []byte {
			b = fixed64(b, 2, unixNano(p.StartTime))
			b = fixed64(b, 3, unixNano(p.Time))
			b = fixed64(b, 4, p.Count)
			b = double(b, 5, float64(p.Sum))
			if len(p.BucketCounts) > 0 {
				b = appendTag(b, 6, bytesKind)
				b = appendVarint(b, uint64(8*len(p.BucketCounts)))
				for _, c := range p.BucketCounts {
					b = appendFixed64(b, c)
				}
			}
			if len(p.Bounds) > 0 {
				b = appendTag(b, 7, bytesKind)
				b = appendVarint(b, uint64(8*len(p.Bounds)))
				for _, x := range p.Bounds {
					b = appendFixed64(b, math.Float64bits(x))
				}
			}
			b = exemplars(b, 8, p.Exemplars)
			b = iterValues(b, 9, p.Attributes.Iter())
			b = extrema(b, p.Min, p.Max, 11)
			return b
		})
	}
	return varint(b, 2, temporality(h.Temporality))
}

// extrema writes a point's min and max, when known, as fields num and
// num+1.
func extrema[N int64 | float64](b []byte, lo, hi metricdata.Extrema[N], num fieldNum) []byte {
	if v, ok := lo.Value(); ok {
		b = double(b, num, float64(v))
	}
	if v, ok := hi.Value(); ok {
		b = double(b, num+1, float64(v))
	}
	return b
}

func expHistogram[N int64 | float64](b []byte, h metricdata.ExponentialHistogram[N]) []byte {
	for _, p := range h.DataPoints {
		b = field(b, 1, func(b []byte) []byte {
			b = iterValues(b, 1, p.Attributes.Iter())
			b = fixed64(b, 2, unixNano(p.StartTime))
			b = fixed64(b, 3, unixNano(p.Time))
			b = fixed64(b, 4, p.Count)
			b = double(b, 5, float64(p.Sum))
			if p.Scale != 0 {
				b = appendTag(b, 6, varintKind)
				b = appendVarint(b, encodeZigZag(int64(p.Scale)))
			}
			b = fixed64(b, 7, p.ZeroCount)
			b = field(b, 8, func(b []byte) []byte { return buckets(b, p.PositiveBucket) })
			b = field(b, 9, func(b []byte) []byte { return buckets(b, p.NegativeBucket) })
			b = exemplars(b, 11, p.Exemplars)
			b = extrema(b, p.Min, p.Max, 12)
			if p.ZeroThreshold != 0 {
				b = double(b, 14, p.ZeroThreshold)
			}
			return b
		})
	}
	return varint(b, 2, temporality(h.Temporality))
}

func buckets(b []byte, bk metricdata.ExponentialBucket) []byte {
	if bk.Offset != 0 {
		b = appendTag(b, 1, varintKind)
		b = appendVarint(b, encodeZigZag(int64(bk.Offset)))
	}
	if len(bk.Counts) == 0 {
		return b
	}
	return field(b, 2, func(b []byte) []byte {
		for _, c := range bk.Counts {
			b = appendVarint(b, c)
		}
		return b
	})
}

func summary(b []byte, s metricdata.Summary) []byte {
	for _, p := range s.DataPoints {
		b = field(b, 1, func(b []byte) []byte {
			b = fixed64(b, 2, unixNano(p.StartTime))
			b = fixed64(b, 3, unixNano(p.Time))
			b = fixed64(b, 4, p.Count)
			if p.Sum != 0 {
				b = double(b, 5, p.Sum)
			}
			for _, q := range p.QuantileValues {
				b = field(b, 6, func(b []byte) []byte {
					if q.Quantile != 0 {
						b = double(b, 1, q.Quantile)
					}
					if q.Value != 0 {
						b = double(b, 2, q.Value)
					}
					return b
				})
			}
			return iterValues(b, 7, p.Attributes.Iter())
		})
	}
	return b
}

func exemplars[N int64 | float64](b []byte, num fieldNum, es []metricdata.Exemplar[N]) []byte {
	for _, e := range es {
		b = field(b, num, func(b []byte) []byte {
			b = byteField(b, 5, e.TraceID)
			b = fixed64(b, 2, unixNano(e.Time))
			b = number(b, e.Value, 3, 6)
			b = byteField(b, 4, e.SpanID)
			return keyValues(b, 7, e.FilteredAttributes)
		})
	}
	return b
}
