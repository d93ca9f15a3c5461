package io.backpressure.eval;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The PNG plots of SPEC §6.5, drawn with XChart: per-class OK throughput bars (one group per
 * configuration, 95 % half-widths as error bars) and, per configuration, a per-tenant service
 * heatmap over time (mean over the repeats; the highest class on top; one colour scale shared by
 * all configurations so they compare).
 */
final class Plots {
  static final String THROUGHPUT_FILE = "ok_rps_by_priority.png";

  static {
    System.setProperty("java.awt.headless", "true");
  }

  private Plots() {}

  /** The heatmap file of one configuration. */
  static String heatmapFile(String config) {
    return "heatmap-" + config + ".png";
  }

  /** Writes every plot of {@code summary} into {@code dir}. */
  static void write(Summary summary, Workload workload, Path dir) throws IOException {
    throughput(summary, workload, dir.resolve(THROUGHPUT_FILE));
    double max = 0;
    for (Summary.ConfigResult r : summary.configs().values()) {
      for (double[] row : r.heat()) {
        for (double v : row) {
          max = Math.max(max, v);
        }
      }
    }
    for (Map.Entry<String, Summary.ConfigResult> e : summary.configs().entrySet()) {
      heatmap(e.getKey(), e.getValue(), workload, Math.max(max, 1e-9), dir.resolve(heatmapFile(e.getKey())));
    }
  }

  private static void throughput(Summary summary, Workload workload, Path file) throws IOException {
    CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
        .title(workload.name() + ": OK req/s per class in the contention window (" + summary.mode() + ", "
            + summary.repeats() + " repeats, 95 % CI)")
        .xAxisTitle("configuration").yAxisTitle("OK requests / s").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    List<String> configs = new ArrayList<>(summary.configs().keySet());
    for (Workload.PriorityWeight k : workload.priorities()) {
      List<Double> means = new ArrayList<>();
      List<Double> errors = new ArrayList<>();
      boolean present = false;
      for (String c : configs) {
        Stats.Estimate e = summary.configs().get(c).keyed("ok_rps_by_priority", k.name());
        present |= e != null;
        means.add(e == null || !Double.isFinite(e.mean()) ? 0 : e.mean());
        errors.add(e == null || !Double.isFinite(e.ci95()) ? 0 : e.ci95());
      }
      if (present) {
        chart.addSeries(k.name(), configs, means, errors);
      }
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  private static void heatmap(String config, Summary.ConfigResult result, Workload workload, double max,
      Path file) throws IOException {
    int tenants = workload.tenants().size();
    int bins = result.heat()[0].length;
    HeatMapChart chart = new HeatMapChartBuilder().width(1000).height(140 + 40 * tenants)
        .title(workload.name() + " / " + config + ": OK req/s per tenant over time (mean of repeats)")
        .xAxisTitle("time (s)").yAxisTitle("tenant (class)").build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setRangeColors(new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B)});
    chart.getStyler().setMin(0);
    chart.getStyler().setMax(max);
    chart.getStyler().setXAxisLabelRotation(90);
    List<Integer> x = new ArrayList<>();
    for (int b = 0; b < bins; b++) {
      x.add((int) Math.round(b * result.binSeconds()));
    }
    List<String> y = new ArrayList<>();
    for (int row = 0; row < tenants; row++) {
      Workload.Tenant t = workload.tenants().get(tenants - 1 - row);
      y.add(t.name() + " (" + t.priority() + ")");
    }
    List<Number[]> heat = new ArrayList<>();
    for (int row = 0; row < tenants; row++) {
      double[] values = result.heat()[tenants - 1 - row];
      for (int b = 0; b < bins; b++) {
        heat.add(new Number[] {b, row, values[b]});
      }
    }
    chart.addSeries("OK req/s", x, y, heat);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
