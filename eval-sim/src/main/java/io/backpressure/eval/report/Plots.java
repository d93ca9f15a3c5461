package io.backpressure.eval.report;

import io.backpressure.core.Dimension;
import io.backpressure.eval.measure.Stats;
import io.backpressure.eval.workload.Workload;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The PNG plots of an evaluation (eval/README.md), drawn with XChart: per-class OK throughput bars
 * (one group per configuration, 95 % half-widths as error bars); per configuration, a per-tenant
 * service heatmap over time (mean over the repeats; the highest class on top; one colour scale
 * shared by all configurations so they compare, its labels rounded by {@link #scaleLabel}); and for
 * a workload whose caps drift or are shared with outside traffic, the cap in use over time per
 * capped dimension: the provider's true cap, what is left of it after outside traffic, the cap
 * configured in the gate, and the rate each configuration's calls reached the provider at.
 */
public final class Plots {
  public static final String THROUGHPUT_FILE = "ok_rps_by_priority.png";
  private static final Map<String, String> UNITS =
      Map.of(Dimension.REQUESTS, "requests / s", Dimension.TOKENS, "tokens / s");

  static {
    System.setProperty("java.awt.headless", "true");
  }

  private Plots() {}

  /** The heatmap file of one configuration. */
  public static String heatmapFile(String config) {
    return "heatmap-" + config + ".png";
  }

  /** The cap-over-time file of one dimension. */
  static String capFile(String dimension) {
    return "cap-" + dimension + ".png";
  }

  /**
   * The capped dimensions that get a cap-over-time plot: all of them when the caps drift, else
   * none.
   */
  static List<String> capPlots(Workload workload) {
    Workload.Upstream up = workload.upstream();
    boolean configuredDiffers = !workload.gate().configuredCaps(up).equals(up.initialCaps());
    if (!up.drifts() && !configuredDiffers) {
      return List.of();
    }
    List<String> dims = new ArrayList<>();
    for (String dim : List.of(Dimension.REQUESTS, Dimension.TOKENS)) {
      if (up.initialCaps().of(dim) != null) {
        dims.add(dim);
      }
    }
    return dims;
  }

  /** The colour scale of the heatmaps has this many bands. */
  static final int SCALE_STEPS = 5;

  /**
   * The top of the colour scale for data up to {@code max}: {@link #SCALE_STEPS} bands of a round
   * width (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), so the band edges read as round
   * numbers ({@code 41.83} → 50: 0–10, 10–20, …).
   */
  static double niceMax(double max) {
    double raw = max / SCALE_STEPS;
    double power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
      if (m * power >= raw * (1 - 1e-12)) {
        return m * power * SCALE_STEPS;
      }
    }
    return 10 * power * SCALE_STEPS;
  }

  /**
   * A colour-scale or axis label: at most three significant digits, no trailing zeros, thousands as
   * {@code k} ({@code 60.33333333333333} → {@code 60.3}, {@code 12000} → {@code 12k}).
   */
  static String scaleLabel(double v) {
    if (!Double.isFinite(v)) {
      return "–";
    }
    double a = Math.abs(v);
    if (a >= 10_000) {
      return trim(String.format(Locale.ROOT, a >= 100_000 ? "%.0f" : "%.1f", v / 1000)) + "k";
    }
    String text =
        a >= 100
            ? String.format(Locale.ROOT, "%.0f", v)
            : a >= 10
                ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    return trim(text);
  }

  private static String trim(String number) {
    return number.contains(".") ? number.replaceAll("0+$", "").replaceAll("\\.$", "") : number;
  }

  /** Writes every plot of {@code summary} into {@code dir}. */
  public static void write(Summary summary, Workload workload, Path dir) throws IOException {
    BitmapEncoder.saveBitmap(
        throughputChart(summary, workload),
        dir.resolve(THROUGHPUT_FILE).toString(),
        BitmapEncoder.BitmapFormat.PNG);
    double max = 0;
    for (Summary.ConfigResult r : summary.configs().values()) {
      for (double[] row : r.heat()) {
        for (double v : row) {
          max = Math.max(max, v);
        }
      }
    }
    for (Map.Entry<String, Summary.ConfigResult> e : summary.configs().entrySet()) {
      BitmapEncoder.saveBitmap(
          heatmapChart(e.getKey(), e.getValue(), workload, Math.max(max, 1e-9)),
          dir.resolve(heatmapFile(e.getKey())).toString(),
          BitmapEncoder.BitmapFormat.PNG);
    }
    for (String dim : capPlots(workload)) {
      BitmapEncoder.saveBitmap(
          capChart(summary, workload, dim),
          dir.resolve(capFile(dim)).toString(),
          BitmapEncoder.BitmapFormat.PNG);
    }
  }

  static CategoryChart throughputChart(Summary summary, Workload workload) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title(
                workload.name()
                    + ": OK req/s per class in the contention window ("
                    + summary.mode()
                    + ", "
                    + summary.repeats()
                    + " repeats, 95 % CI)")
            .xAxisTitle("configuration")
            .yAxisTitle("OK requests / s")
            .build();
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
    chart.getStyler().setyAxisTickLabelsFormattingFunction(Plots::scaleLabel);
    return chart;
  }

  static HeatMapChart heatmapChart(
      String config, Summary.ConfigResult result, Workload workload, double max) {
    int tenants = workload.tenants().size();
    int bins = result.heat()[0].length;
    HeatMapChart chart =
        new HeatMapChartBuilder()
            .width(1000)
            .height(140 + 40 * tenants)
            .title(
                workload.name()
                    + " / "
                    + config
                    + ": OK req/s per tenant over time (mean of repeats)")
            .xAxisTitle("time (s)")
            .yAxisTitle("tenant (class)")
            .build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart
        .getStyler()
        .setRangeColors(
            new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B)});
    chart.getStyler().setMin(0);
    chart.getStyler().setMax(niceMax(max));
    chart.getStyler().setPiecewise(true).setPiecewiseRanged(true).setSplitNumber(SCALE_STEPS);
    chart.getStyler().setHeatMapDecimalValueFormatter(Plots::scaleLabel);
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
    return chart;
  }

  /**
   * The cap in use over time for {@code dimension}: the true cap (a step at each schedule entry),
   * the cap less outside traffic when there is any, the gate's configured cap, and per
   * configuration the rate its calls reached the provider at (mean over the repeats, per time bin).
   */
  static XYChart capChart(Summary summary, Workload workload, String dimension) {
    Workload.Upstream up = workload.upstream();
    String unit = UNITS.get(dimension);
    XYChart chart =
        new XYChartBuilder()
            .width(1000)
            .height(500)
            .title(
                workload.name()
                    + ": "
                    + dimension
                    + " cap in use and admitted rate over time ("
                    + summary.mode()
                    + ", mean of "
                    + summary.repeats()
                    + " repeats)")
            .xAxisTitle("time (s)")
            .yAxisTitle(unit)
            .build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setyAxisTickLabelsFormattingFunction(Plots::scaleLabel);
    chart.getStyler().setxAxisTickLabelsFormattingFunction(Plots::scaleLabel);
    List<Double> times = new ArrayList<>(List.of(0.0));
    up.schedule().forEach(c -> times.add(c.atS()));
    List<Double> x = new ArrayList<>();
    List<Double> trueCap = new ArrayList<>();
    List<Double> leftCap = new ArrayList<>();
    for (int i = 0; i < times.size(); i++) {
      double from = times.get(i);
      double to = i + 1 < times.size() ? times.get(i + 1) : workload.durationS();
      double cap = up.capsAt(from).of(dimension);
      x.addAll(List.of(from, to));
      trueCap.addAll(List.of(cap, cap));
      leftCap.addAll(List.of(cap - up.outsideOf(dimension), cap - up.outsideOf(dimension)));
    }
    line(chart.addSeries("true cap", x, trueCap), new Color(0x444444), SeriesLines.SOLID);
    if (up.outsideOf(dimension) > 0) {
      line(
          chart.addSeries("true cap less outside traffic", x, leftCap),
          new Color(0x888888),
          SeriesLines.DASH_DASH);
    }
    double configured = workload.gate().configuredCaps(up).of(dimension);
    line(
        chart.addSeries(
            "configured in the gate",
            List.of(0.0, workload.durationS()),
            List.of(configured, configured)),
        new Color(0xC0392B),
        SeriesLines.DOT_DOT);
    int row = Dimension.REQUESTS.equals(dimension) ? 0 : 1;
    for (Map.Entry<String, Summary.ConfigResult> e : summary.configs().entrySet()) {
      double[] usage = e.getValue().usage()[row];
      List<Double> mid = new ArrayList<>();
      List<Double> rate = new ArrayList<>();
      for (int b = 0; b < usage.length; b++) {
        mid.add((b + 0.5) * e.getValue().binSeconds());
        rate.add(usage[b]);
      }
      chart
          .addSeries("reached the provider: " + e.getKey(), mid, rate)
          .setMarker(SeriesMarkers.NONE);
    }
    return chart;
  }

  private static void line(XYSeries series, Color color, java.awt.BasicStroke stroke) {
    series.setMarker(SeriesMarkers.NONE).setLineColor(color).setLineStyle(stroke);
  }
}
