package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// axisScale resolves a ChartOptions.Axis for figures from lo to hi (both
// positive for log): auto takes log when they span more than ratio.
func axisScale(setting string, lo, hi, ratio float64) string {
	switch {
	case setting == "linear" || setting == "log":
		if setting == "log" && !(lo > 0) {
			return "linear"
		}
		return setting
	case lo > 0 && hi/lo > ratio:
		return "log"
	}
	return "linear"
}

// fitTicks labels an axis so that no two labels touch: it knows the
// axis' length on the page and measures each label, and takes the
// densest nice step whose labels fit.
type fitTicks struct {
	log      bool
	unit     string
	style    text.Style
	length   vg.Length // of the axis; 0 until the plot is laid out
	vertical bool
	// at, if set, are the only values that may carry ticks (a swept
	// parameter's values); labels are thinned until they fit.
	at     []float64
	format func(float64) string // for at
}

// Ticks implements plot.Ticker.
func (t fitTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	if t.at != nil {
		return t.thinned(min, max)
	}
	if t.log && min > 0 {
		if ticks := t.decades(min, max); ticks != nil {
			return ticks
		}
	}
	return t.linear(min, max)
}

// fits reports whether labels at values, in axis order, leave a gap
// between neighbours.
func (t fitTicks) fits(min, max float64, ticks []plot.Tick) bool {
	if t.length <= 0 {
		return len(labelled(ticks)) <= 6
	}
	pos := func(v float64) vg.Length {
		if t.log {
			return t.length * vg.Length((math.Log(v)-math.Log(min))/(math.Log(max)-math.Log(min)))
		}
		return t.length * vg.Length((v-min)/(max-min))
	}
	// Labels at most every 70pt across or 25pt up: a readable scale, not a
	// ruler.
	if n := len(labelled(ticks)); n > 1 && !t.vertical && t.length/vg.Length(n-1) < 70 && !t.log {
		return false
	}
	if n := len(labelled(ticks)); n > 1 && t.vertical && t.length/vg.Length(n-1) < 25 {
		return false
	}
	gap := t.style.Width("0") * 1.5
	ext := func(s string) vg.Length {
		if t.vertical {
			return t.style.Height(s)
		}
		return t.style.Width(s)
	}
	var prevEnd vg.Length
	first := true
	for _, tk := range labelled(ticks) {
		p, e := pos(tk.Value), ext(tk.Label)
		if !first && p-e/2 < prevEnd+gap {
			return false
		}
		prevEnd, first = p+e/2, false
	}
	return true
}

func labelled(ticks []plot.Tick) []plot.Tick {
	var out []plot.Tick
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t)
		}
	}
	return out
}

// linear tries steps of 1, 2, 2.5 and 5 times a power of ten of the
// axis' unit (ms, MiB/s), densest first.
func (t fitTicks) linear(min, max float64) []plot.Tick {
	scale := scaleFor(t.unit, math.Max(math.Abs(min), math.Abs(max)))
	lo, hi := min/scale.div, max/scale.div
	span := hi - lo
	var last []plot.Tick
	for e := math.Floor(math.Log10(span)) - 2; e <= math.Floor(math.Log10(span))+1; e++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * math.Pow(10, e)
			if span/step > 40 {
				continue
			}
			var ticks []plot.Tick
			for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
				v = roundTo(v, 12)
				ticks = append(ticks, plot.Tick{Value: v * scale.div, Label: formatTick(scale, v*scale.div)})
			}
			if len(ticks) < 2 && last != nil {
				return last
			}
			last = ticks
			if t.fits(min, max, ticks) {
				return ticks
			}
		}
	}
	return last
}

// decades labels every k-th power of ten, the smallest k that fits, with
// minor ticks between when each decade is labelled. It returns nil when
// the axis holds fewer than two powers of ten.
func (t fitTicks) decades(min, max float64) []plot.Tick {
	first, last := math.Ceil(math.Log10(min)-1e-9), math.Floor(math.Log10(max)+1e-9)
	if last-first < 1 {
		return nil
	}
	for step := 1.0; ; step++ {
		var ticks []plot.Tick
		for e := first; e <= last; e++ {
			d := math.Pow(10, e)
			tick := plot.Tick{Value: d}
			if math.Mod(e-first, step) == 0 {
				tick.Label = formatFigure(t.unit, d)
			}
			ticks = append(ticks, tick)
		}
		if t.fits(min, max, ticks) || step > last-first {
			// Minor ticks only where a decade has room for them.
			if step == 1 && (t.length <= 0 || float64(t.length)/(math.Log10(max)-math.Log10(min)) >= 60) {
				ticks = append(ticks, minorDecades(min, max)...)
			}
			return ticks
		}
	}
}

func minorDecades(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 2.0; m < 10; m++ {
			if v := m * math.Pow(10, e); v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// thinned ticks every value of at, labelling every k-th, the smallest k
// whose labels fit.
func (t fitTicks) thinned(min, max float64) []plot.Tick {
	var in []float64
	for _, v := range t.at {
		if v >= min && v <= max {
			in = append(in, v)
		}
	}
	for k := 1; ; k++ {
		var ticks []plot.Tick
		for i, v := range in {
			tick := plot.Tick{Value: v}
			if i%k == 0 {
				tick.Label = t.format(v)
			}
			ticks = append(ticks, tick)
		}
		if t.fits(min, max, ticks) || k >= len(in) {
			return ticks
		}
	}
}
