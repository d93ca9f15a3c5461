package io.backpressure.eval.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.eval.Evaluation;
import io.backpressure.eval.ProgressBar;
import io.backpressure.eval.report.SummaryJson;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.SimRunner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceWorkloadTest {
  private static final String AZURE_STYLE =
      """
      TIMESTAMP,ContextTokens,GeneratedTokens
      2023-11-16 18:17:03.9799600,4808,10
      2023-11-16 18:17:04.0319600,3180,8
      2023-11-16 18:17:05.5000000,100,300
      2023-11-16 18:17:06.0000000,200,20
      2023-11-16 18:17:13.9799600,50,5
      """;

  @TempDir Path dir;

  private Workload load(String tenantEntry) throws IOException {
    Path yaml = dir.resolve("w.yaml");
    Files.writeString(
        yaml,
        """
        name: trace-test
        duration_s: 60
        upstream: {requests_per_s: 10, tokens_per_s: 20000, period_s: 1}
        priorities: {P1: 0.7, P2: 0.3}
        worker: {slots: 8}
        tenants:
        """
            + tenantEntry);
    return Workloads.load(yaml.toString());
  }

  private void write(String name, String text) throws IOException {
    Files.writeString(dir.resolve(name), text);
  }

  @Test
  void rowsSplitByIndexArriveAtTheirOffsetsWithTheirSizes() throws IOException {
    write("conv.csv", AZURE_STYLE);
    Workload w =
        load(
            """
              - name: conv
                priority: P1
                start_s: 2
                trace: {file: conv.csv, timestamp: TIMESTAMP, prompt_tokens: ContextTokens,
                        completion_tokens: GeneratedTokens, split: 2}
            """);
    assertThat(w.tenants()).extracting(Workload.Tenant::name).containsExactly("conv-0", "conv-1");
    TraceArrivals even = w.tenants().get(0).trace();
    assertThat(even.size()).isEqualTo(3);
    assertThat(even.atS(0)).isCloseTo(2.0, within(1e-9));
    assertThat(even.atS(1)).isCloseTo(2 + 1.52004, within(1e-6));
    assertThat(even.atS(2)).isCloseTo(12.0, within(1e-6));
    assertThat(even.prompt(1)).isEqualTo(100);
    assertThat(even.completion(1)).isEqualTo(300);
    TraceArrivals odd = w.tenants().get(1).trace();
    assertThat(odd.atS(0)).isCloseTo(2.052, within(1e-6));
    assertThat(odd.prompt(0)).isEqualTo(3180);
    Workload.Tenant conv0 = w.tenants().get(0);
    assertThat(conv0.workflows()).isZero();
    assertThat(conv0.openLoop()).isFalse();
    assertThat(conv0.meanTokensPerCall())
        .isCloseTo((4808 + 100 + 50 + 10 + 300 + 5) / 3.0, within(1e-9));
  }

  @Test
  void sliceAndSpeedKeepRowsInTheSliceAndCompressTime() throws IOException {
    write("conv.csv", AZURE_STYLE);
    Workload w =
        load(
            """
              - name: conv
                priority: P2
                trace: {file: conv.csv, timestamp: TIMESTAMP, prompt_tokens: ContextTokens,
                        from_s: 1, to_s: 10, speed: 2}
            """);
    TraceArrivals a = w.tenants().get(0).trace();
    assertThat(a.size()).isEqualTo(2);
    assertThat(a.atS(0)).isCloseTo((1.52004 - 1) / 2, within(1e-6));
    assertThat(a.atS(1)).isCloseTo((2.02004 - 1) / 2, within(1e-6));
    assertThat(a.completion(0)).as("no completion column: 0").isZero();
  }

  @Test
  void jsonLinesWithTenantAndClassColumnsMakeOneQueuePerTenant() throws IOException {
    Files.write(
        dir.resolve("log.jsonl.gz"),
        gzip(
            """
            {"ts": 100.0, "user": "acme", "tier": "P1", "in": 10, "out": 5}
            {"ts": 100.5, "user": "globex", "tier": "P2", "in": 20, "out": 6}

            {"ts": 101.0, "user": "acme", "tier": "P1", "in": 30, "out": 7}
            """));
    Workload w =
        load(
            """
              - name: log
                trace: {file: log.jsonl.gz, timestamp: ts, prompt_tokens: in,
                        completion_tokens: out, tenant: user, class: tier}
            """);
    assertThat(w.tenants()).extracting(Workload.Tenant::name).containsExactly("acme", "globex");
    assertThat(w.tenants()).extracting(Workload.Tenant::priority).containsExactly("P1", "P2");
    assertThat(w.tenants().get(0).trace().atS(1)).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void sameSeedSameSummaryAndTheTraceIsReplayedCallForCall() throws IOException {
    StringBuilder csv = new StringBuilder("t,p,c\n");
    for (int i = 0; i < 400; i++) {
      csv.append(i * 0.05)
          .append(',')
          .append(200 + (i * 37) % 1800)
          .append(',')
          .append(50)
          .append('\n');
    }
    write("burst.csv", csv.toString());
    Workload w =
        load(
            """
              - name: burst
                priority: P1
                trace: {file: burst.csv, timestamp: t, prompt_tokens: p, completion_tokens: c, split: 3}
            """);
    List<Configuration> configs = Configuration.parseList("naive,bp");
    ProgressBar quiet = new ProgressBar(System.err, 0, false);
    String first =
        SummaryJson.render(
            Evaluation.run(new SimRunner(), List.of(w), configs, 2, 7, 2, quiet).get(0));
    String second =
        SummaryJson.render(
            Evaluation.run(new SimRunner(), List.of(w), configs, 2, 7, 1, quiet).get(0));
    assertThat(second).isEqualTo(first);
    var recording = new SimRunner().run(w, Configuration.named("bp"), 3);
    assertThat(recording.calls()).hasSize(400);
    assertThat(recording.calls().stream().mapToLong(c -> c.submittedNanos()).min().getAsLong())
        .isZero();
  }

  @Test
  void badFilesAreRefusedNamingTheLineAndTheColumn() throws IOException {
    String entry =
        """
          - name: t
            priority: P1
            trace: {file: bad.csv, timestamp: TIMESTAMP, prompt_tokens: ContextTokens,
                    completion_tokens: GeneratedTokens}
        """;
    write("bad.csv", "TIMESTAMP,ContextTokens\n2023-11-16 18:17:03,5\n");
    assertThatThrownBy(() -> load(entry))
        .hasMessageContaining("bad.csv line 1")
        .hasMessageContaining("no column 'GeneratedTokens'");
    write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n0,5,1\nyesterday,5,1\n");
    assertThatThrownBy(() -> load(entry))
        .hasMessageContaining("bad.csv line 3, column TIMESTAMP")
        .hasMessageContaining("cannot read 'yesterday' as a time");
    write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n0,5,1\n1,-4,1\n");
    assertThatThrownBy(() -> load(entry))
        .hasMessageContaining("bad.csv line 3, column ContextTokens")
        .hasMessageContaining("[0, 10000000], got '-4'");
    write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n5,5,1\n6,5,1\n4,5,1\n");
    assertThatThrownBy(() -> load(entry))
        .hasMessageContaining("bad.csv line 4, column TIMESTAMP")
        .hasMessageContaining("earlier than line 3");
    write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n0,5,1.5\n");
    assertThatThrownBy(() -> load(entry))
        .hasMessageContaining("bad.csv line 2, column GeneratedTokens");
    write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
    assertThatThrownBy(() -> load(entry)).hasMessageContaining("no rows");
  }

  @Test
  void entryErrorsNameTheField() throws IOException {
    write("conv.csv", AZURE_STYLE);
    String trace = "trace: {file: conv.csv, timestamp: TIMESTAMP, prompt_tokens: ContextTokens";
    assertThatThrownBy(() -> load("  - {name: c, priority: P1, workflows: 2, " + trace + "}}\n"))
        .isInstanceOf(WorkloadException.class)
        .hasMessageContaining("tenants[0].workflows and trace are exclusive");
    assertThatThrownBy(
            () -> load("  - {name: c, priority: P1, " + trace + ", tenant: x, split: 2}}\n"))
        .hasMessageContaining("trace.split and trace.tenant are exclusive");
    assertThatThrownBy(() -> load("  - {name: c, priority: P1, " + trace + ", from_s: 100}}\n"))
        .hasMessageContaining("leave no row");
    assertThatThrownBy(() -> load("  - {name: c, priority: P1, " + trace + ", colour: red}}\n"))
        .hasMessageContaining("unknown key 'tenants[0].trace.colour'");
    assertThatThrownBy(() -> load("  - {name: c, priority: P9, " + trace + "}}\n"))
        .hasMessageContaining("class must be one of [P1, P2]");
    assertThatThrownBy(
            () -> load("  - {name: c, priority: P1, " + trace.replace("conv", "none") + "}}\n"))
        .hasMessageContaining("tenants[0].trace.file: cannot read trace file 'none.csv'");
  }

  @Test
  void aTenantInTwoClassesAndACallAboveTheWindowAreRefused() throws IOException {
    write("c.csv", "t,p,u,k\n0,5,a,P1\n1,5,a,P2\n");
    assertThatThrownBy(
            () ->
                load(
                    "  - {name: c, trace: {file: c.csv, timestamp: t, prompt_tokens: p,"
                        + " tenant: u, class: k}}\n"))
        .hasMessageContaining("c.csv line 3, column k")
        .hasMessageContaining("a tenant belongs to one class");
    write("big.csv", "t,p\n0,5\n1,25000\n");
    assertThatThrownBy(
            () ->
                load(
                    "  - {name: c, priority: P1, trace: {file: big.csv, timestamp: t, prompt_tokens: p}}\n"))
        .hasMessageContaining("tenants[0].trace has a call (tenant c) of 25000 tokens");
  }

  @Test
  void theShippedAzureWorkloadReplaysBothTracesWhole() {
    Workload w = Workloads.load("azure-2023");
    assertThat(w.tenants()).hasSize(12);
    assertThat(w.tenants().stream().filter(t -> t.priority().equals("P1")))
        .extracting(Workload.Tenant::name)
        .containsExactly(
            "conv-0", "conv-1", "conv-2", "conv-3", "conv-4", "conv-5", "conv-6", "conv-7");
    int conv = 0;
    int code = 0;
    long largest = 0;
    for (Workload.Tenant t : w.tenants()) {
      if (t.priority().equals("P1")) {
        conv += t.trace().size();
      } else {
        code += t.trace().size();
      }
      largest = Math.max(largest, t.promptTokens().max());
    }
    assertThat(conv).isEqualTo(19_366);
    assertThat(code).isEqualTo(8_819);
    assertThat(largest).isEqualTo(14_050);
  }

  @Test
  void scalingStretchesTheTrace() throws IOException {
    write("conv.csv", AZURE_STYLE);
    Workload w =
        load(
            "  - {name: c, priority: P1, trace: {file: conv.csv, timestamp: TIMESTAMP,"
                + " prompt_tokens: ContextTokens}}\n");
    Workload.Tenant scaled = w.scaled(4).tenants().get(0);
    assertThat(scaled.workflows()).isZero();
    assertThat(scaled.trace().atS(4))
        .isCloseTo(4 * w.tenants().get(0).trace().atS(4), within(1e-9));
  }

  private static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(bytes)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }
}
