package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.redis.TestRedis;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The external-server path: {@code dev-server} runs as a process of its own, and {@code eval --mode
 * real --temporal 127.0.0.1:PORT} runs against it from another process, with two worker processes
 * sharing the gate through Redis. A short run (20 s of bp on cross-priority at the real mode's
 * default scale: 15 req/s, 4 slots); the bounds are loose enough for a loaded 2-core machine (some
 * calls succeed, none fail, the provider never sees more than the gate's bound).
 */
class DevServerIT {
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    for (Process p : started) {
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void evalRunsAgainstTheDevServerInAnotherProcessWithWorkerProcesses(@TempDir Path dir)
      throws Exception {
    int port = TestRedis.freePort();
    Process server =
        java(
            dir.resolve("dev-server.log"),
            DevServerCommand.class,
            "--port",
            Integer.toString(port));
    BufferedReader serverOut =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String first =
        CompletableFuture.supplyAsync(() -> readLine(serverOut)).get(60, TimeUnit.SECONDS);
    assertThat(first)
        .isEqualTo(
            "Temporal test server listening on 127.0.0.1:"
                + port
                + " (namespace default; Ctrl-C stops it)");

    Path out = dir.resolve("out");
    Process eval =
        java(
            null,
            EvalCommand.class,
            "--workload",
            "cross-priority",
            "--configs",
            "bp",
            "--mode",
            "real",
            "--temporal",
            "127.0.0.1:" + port,
            "--workers",
            "2",
            "--redis",
            TestRedis.shared().url(),
            "--duration-s",
            "20",
            "--repeats",
            "1",
            "--out",
            out.toString());
    CompletableFuture<String> evalOut =
        CompletableFuture.supplyAsync(() -> readAll(eval.getInputStream()));
    CompletableFuture<String> evalErr =
        CompletableFuture.supplyAsync(() -> readAll(eval.getErrorStream()));
    assertThat(eval.waitFor(150, TimeUnit.SECONDS)).as("eval finished").isTrue();
    String printed = evalOut.get(10, TimeUnit.SECONDS);
    String errors = evalErr.get(10, TimeUnit.SECONDS);
    assertThat(eval.exitValue())
        .as(
            printed
                + errors
                + "\ndev server alive: "
                + server.isAlive()
                + ", its log:\n"
                + Files.readString(dir.resolve("dev-server.log")))
        .isZero();
    assertThat(server.isAlive()).as("the dev server outlives the evaluation").isTrue();

    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("mode").asText()).isEqualTo("real");
    JsonNode bp = summary.get("configs").get("bp");
    assertThat(bp.get("ok_rps_total").get("mean").asDouble()).as(printed).isGreaterThan(0.5);
    assertThat(bp.get("calls_failed").get("mean").asDouble()).isZero();
    double seen = bp.get("upstream_max_per_window").get("requests").get("mean").asDouble();
    double bound = bp.get("upstream_window_bound").get("requests").get("mean").asDouble();
    assertThat(seen).isPositive().isLessThanOrEqualTo(bound);
    assertThat(Files.readString(out.resolve("report.md"))).contains("--temporal 127.0.0.1:" + port);

    // Quiet by default: the command's own lines only, the libraries' logs in the output folder.
    assertThat(printed)
        .doesNotContain(" INFO ")
        .doesNotContain(" WARN ")
        .contains("library logs: ");
    assertThat(errors).doesNotContain(" INFO ").doesNotContain("Exception");
    assertThat(out.resolve(LibraryLogs.FILE)).exists();
  }

  /**
   * Starts {@code main} in a JVM of its own; its stderr goes to {@code errors} (null: read by the
   * caller).
   */
  private Process java(Path errors, Class<?> main, String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    if (errors != null) {
      builder.redirectError(errors.toFile());
    }
    Process p = builder.start();
    started.add(p);
    return p;
  }

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String readAll(java.io.InputStream in) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
