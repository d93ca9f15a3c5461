package io.backpressure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the README's metric table against what {@link MeteredGate} really
 * produces in a Prometheus registry after a short scenario.
 */
class DashboardTest {
  private static final Path DASHBOARD = Path.of("..", "dashboards", "backpressure.json");
  private static final Path README = Path.of("README.md");
  private static final Pattern METRIC = Pattern.compile("\\bbackpressure_[a-z0-9_]+");
  private static final Pattern TABLE_ROW =
      Pattern.compile(
          "^\\| `(backpressure\\.[a-z.]+)` \\| `(backpressure_[a-z_]+)` \\|", Pattern.MULTILINE);

  private static Set<String> scraped;
  private static JsonNode dashboard;

  @BeforeAll
  static void scrapeAfterAScenario() throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    scraped = seriesNames(scenario(registry));
    dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
  }

  /**
   * Admit, defer, reject, release with a refund, report a 429, through a fail-open wrapper; returns
   * the scrape.
   */
  static String scenario(PrometheusMeterRegistry registry) {
    Policy policy = MeteredGateTest.policy();
    InMemoryGate inner = InMemoryGate.create(policy, new ManualClock());
    MeteredGate gate =
        MeteredGate.builder(FailOpenGate.around(inner).build(), registry)
            .policy(inner::policy)
            .levels(inner::levels)
            .feedback(inner::feedbackState)
            .leases(inner::inFlight, inner::expiredLeases)
            .concurrencyLimit(inner::concurrencyLimit)
            .measuredLatency(inner::measuredLatencyMicros)
            .quotas(inner)
            .build();
    Admission first = gate.admit("acme", "P1", Cost.requests(1).tokens(400));
    gate.admit("acme", "P1", Cost.requests(1).tokens(400));
    gate.admit("acme", "P1", Cost.requests(1).tokens(400));
    gate.admit("acme", "P2", Cost.requests(1).tokens(5_000));
    gate.release(((Admission.Admitted) first).grant(), Cost.requests(1).tokens(100));
    gate.feedback(
        ((Admission.Admitted) first).grant(), ProviderSignal.rateLimited("requests", null));
    return registry.scrape();
  }

  @Test
  void dashboardIsAGrafanaDashboardOnAPrometheusVariable() {
    assertThat(dashboard.path("title").asText()).isEqualTo("Backpressure");
    assertThat(dashboard.path("uid").asText()).isNotBlank();
    JsonNode variables = dashboard.path("templating").path("list");
    assertThat(variables.findValuesAsText("name")).contains("datasource", "target", "priority");
    assertThat(variables.get(0).path("type").asText()).isEqualTo("datasource");
    assertThat(variables.get(0).path("query").asText()).isEqualTo("prometheus");
    List<JsonNode> charts = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(
            p -> {
              if (!p.path("type").asText().equals("row")) {
                charts.add(p);
              }
            });
    assertThat(charts)
        .hasSizeGreaterThanOrEqualTo(10)
        .allSatisfy(
            panel -> {
              assertThat(panel.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
              assertThat(panel.path("targets").size()).isPositive();
              assertThat(panel.path("gridPos").path("w").asInt()).isBetween(1, 24);
            });
  }

  @Test
  void everyMetricTheDashboardQueriesIsProduced() {
    Set<String> referenced = metricNames(dashboard.toString());
    assertThat(referenced).isNotEmpty();
    assertThat(scraped).containsAll(referenced);
  }

  @Test
  void everyDocumentedMetricIsProducedAndCharted() throws IOException {
    Set<String> documented = new TreeSet<>();
    Matcher row = TABLE_ROW.matcher(Files.readString(README));
    while (row.find()) {
      String prometheus = row.group(1).replace('.', '_');
      assertThat(row.group(2)).as("Prometheus name of " + row.group(1)).startsWith(prometheus);
      documented.add(row.group(2));
    }
    assertThat(documented).hasSize(33);
    Set<String> families = new TreeSet<>();
    for (String name : scraped) {
      families.add(name.replaceAll("_(bucket|count|sum|max)$", ""));
    }
    assertThat(documented)
        .as("the README table is the list of what is produced")
        .isEqualTo(families);
    Set<String> charted = new TreeSet<>();
    for (String name : metricNames(dashboard.toString())) {
      charted.add(name.replaceAll("_(bucket|count|sum|max)$", ""));
    }
    assertThat(charted).as("the dashboard charts every documented metric").isEqualTo(documented);
  }

  /** Every series name in a Prometheus text exposition. */
  static Set<String> seriesNames(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  private static Set<String> metricNames(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(text);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }
}
