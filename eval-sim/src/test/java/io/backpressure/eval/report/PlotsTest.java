package io.backpressure.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.Evaluation;
import io.backpressure.eval.ProgressBar;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.SimRunner;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import io.backpressure.eval.workload.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

class PlotsTest {
  private static final Workload DRIFT =
      WorkloadReader.parse(
          """
      name: drift
      duration_s: 12
      warmup_s: 1
      upstream:
        requests_per_s: 20
        tokens_per_s: 3000
        latency_ms: [20, 40]
        schedule: [{at_s: 6, requests_per_s: 10}]
        outside: {requests_per_s: 2, tokens_per_s: 300}
      priorities: {P1: 0.6, P2: 0.4}
      worker: {slots: 8}
      gate: {caps: {requests_per_s: 18}}
      tenants:
        - {name: a, priority: P1, workflows: 4, prompt_tokens: 50, completion_tokens: 50}
        - {name: b, priority: P2, workflows: 4, prompt_tokens: 50, completion_tokens: 50}
      """);

  private static Summary summary(Workload workload) {
    return Evaluation.run(
            new SimRunner(),
            List.of(workload),
            Configuration.parseList("naive,bp"),
            2,
            1,
            1,
            new ProgressBar(System.err, 0, false))
        .get(0);
  }

  @Test
  void scaleLabelsKeepThreeSignificantDigitsAndNoTrailingZeros() {
    assertThat(Plots.scaleLabel(60.33333333333333)).isEqualTo("60.3");
    assertThat(Plots.scaleLabel(0.25)).isEqualTo("0.25");
    assertThat(Plots.scaleLabel(0.3333333)).isEqualTo("0.33");
    assertThat(Plots.scaleLabel(1.0)).isEqualTo("1");
    assertThat(Plots.scaleLabel(20.0)).isEqualTo("20");
    assertThat(Plots.scaleLabel(149.6)).isEqualTo("150");
    assertThat(Plots.scaleLabel(12000)).isEqualTo("12k");
    assertThat(Plots.scaleLabel(12345)).isEqualTo("12.3k");
    assertThat(Plots.scaleLabel(Double.NaN)).isEqualTo("–");
  }

  @Test
  void theColourScaleEndsAtARoundNumberInFiveBands() {
    assertThat(Plots.niceMax(41.833333333333336)).isEqualTo(50.0);
    assertThat(Plots.niceMax(60.33333333333333)).isEqualTo(75.0);
    assertThat(Plots.niceMax(10)).isEqualTo(10.0);
    assertThat(Plots.niceMax(0.7)).isCloseTo(0.75, org.assertj.core.api.Assertions.within(1e-12));
  }

  @Test
  void heatmapColourScaleAndAxesAreLabelledReadably() {
    Summary s = summary(Workloads.load("cross-priority").withDuration(8));
    HeatMapChart chart =
        Plots.heatmapChart(
            "bp", s.configs().get("bp"), Workloads.load("cross-priority"), 60.33333333333333);
    assertThat(chart.getStyler().getHeatMapDecimalValueFormatter().apply(60.33333333333333))
        .isEqualTo("60.3");
    assertThat(chart.getStyler().isPiecewise())
        .as("banded legend, whose labels the formatter writes")
        .isTrue();
    assertThat(chart.getStyler().getMax()).isEqualTo(75.0);
    assertThat(chart.getStyler().getHeatMapDecimalValueFormatter().apply(15.083333333333334))
        .isEqualTo("15.1");
    assertThat(chart.getXAxisTitle()).isEqualTo("time (s)");
    assertThat(chart.getTitle()).contains("OK req/s");
    assertThat(Plots.throughputChart(s, Workloads.load("cross-priority")).getYAxisTitle())
        .isEqualTo("OK requests / s");
    assertThat(Plots.capPlots(Workloads.load("cross-priority")))
        .as("no drift, no cap plot")
        .isEmpty();
  }

  @Test
  void theCapPlotShowsTheTrueCapItsShareLeftTheConfiguredCapAndTheAdmittedRate(@TempDir Path dir)
      throws Exception {
    Summary s = summary(DRIFT);
    assertThat(Plots.capPlots(DRIFT)).containsExactly("requests", "tokens");
    XYChart chart = Plots.capChart(s, DRIFT, "requests");
    assertThat(chart.getYAxisTitle()).isEqualTo("requests / s");
    assertThat(chart.getXAxisTitle()).isEqualTo("time (s)");
    assertThat(chart.getSeriesMap().keySet())
        .containsExactly(
            "true cap",
            "true cap less outside traffic",
            "configured in the gate",
            "reached the provider: naive",
            "reached the provider: bp");
    XYSeries truth = chart.getSeriesMap().get("true cap");
    assertThat(truth.getXData()).containsExactly(0.0, 6.0, 6.0, 12.0);
    assertThat(truth.getYData()).containsExactly(20.0, 20.0, 10.0, 10.0);
    assertThat(chart.getSeriesMap().get("true cap less outside traffic").getYData())
        .containsExactly(18.0, 18.0, 8.0, 8.0);
    assertThat(chart.getSeriesMap().get("configured in the gate").getYData())
        .containsExactly(18.0, 18.0);
    double[] naive = chart.getSeriesMap().get("reached the provider: naive").getYData();
    assertThat(naive[8])
        .as("after the cap fell, the provider counts at most 8 req/s")
        .isLessThanOrEqualTo(8.0);
    assertThat(chart.getStyler().getyAxisTickLabelsFormattingFunction().apply(3333.3333333))
        .isEqualTo("3333");
    assertThat(Plots.capChart(s, DRIFT, "tokens").getYAxisTitle()).isEqualTo("tokens / s");

    Plots.write(s, DRIFT, dir);
    assertThat(dir.resolve(Plots.capFile("requests"))).isNotEmptyFile();
    assertThat(dir.resolve(Plots.capFile("tokens"))).isNotEmptyFile();
    byte[] png = Files.readAllBytes(dir.resolve(Plots.capFile("requests")));
    assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
  }
}
