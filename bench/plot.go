/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plot draws two panels side by side against N: pods labelled per second with limits
// off, and heap growth per cached pod, each with its baseline.
func (r *Results) plot(path string, sizes []int) error {
	throughput := plot.New()
	throughput.Title.Text = "Pod labelling throughput (manager defaults: no client-side limit)"
	throughput.X.Label.Text = "pods (N)"
	throughput.Y.Label.Text = "pods labelled per second"
	memory := plot.New()
	memory.Title.Text = "Heap per cached pod (after GC)"
	memory.X.Label.Text = "pods in the cluster (N, half annotated)"
	memory.Y.Label.Text = "bytes per pod"

	lines := make([]any, 0, 4)
	for _, role := range []string{RoleManager, RoleClientGoLabeler} {
		var xys plotter.XYs
		for _, n := range sizes {
			if l := r.labeling(role, settingDefaults, n); l != nil {
				xys = append(xys, plotter.XY{X: float64(n), Y: l.PodsPerSecond})
			}
		}
		lines = append(lines, roleName(role), xys)
	}
	if err := plotutil.AddLinePoints(throughput, lines...); err != nil {
		return err
	}
	lines = nil
	for _, role := range []string{RoleManager, RoleFullPodManager} {
		var xys plotter.XYs
		for _, n := range sizes {
			if m := r.memory(role, n); m != nil {
				xys = append(xys, plotter.XY{X: float64(n), Y: m.BytesPerPod})
			}
		}
		lines = append(lines, roleName(role), xys)
	}
	if err := plotutil.AddLinePoints(memory, lines...); err != nil {
		return err
	}
	for _, p := range []*plot.Plot{throughput, memory} {
		// Headroom above the lines for the legend.
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.3
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
	}

	img := vgimg.New(vg.Points(1100), vg.Points(420))
	canvases := plot.Align([][]*plot.Plot{{throughput, memory}},
		draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(30), PadTop: vg.Points(10), PadBottom: vg.Points(10),
			PadLeft: vg.Points(10), PadRight: vg.Points(10)}, draw.New(img))
	throughput.Draw(canvases[0][0])
	memory.Draw(canvases[0][1])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
