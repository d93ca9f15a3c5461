package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ServerTimedWarningTest {

  @Test
  void manyFallbacksFromManyThreadsLogOneWarning() throws Exception {
    ServerTimedWarning warning =
        new ServerTimedWarning(LoggerFactory.getLogger(ServerTimedWarningTest.class));
    PrintStream original = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        done.add(pool.submit(() -> warning.deferredOnServerTimer("openai/gpt-4o")));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
      System.setErr(original);
    }
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0))
        .contains("WARN")
        .contains("target openai/gpt-4o")
        .contains("retry timer")
        .contains("maximumAttempts")
        .contains("BackpressureInterceptor.create()")
        .contains("docs/temporal.md");
  }
}
