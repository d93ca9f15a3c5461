package io.backpressure.mock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Measures how many completions per second an in-process {@link MockProvider} sustains: a closed
 * loop of {@code --concurrency} asynchronous HTTP/1.1 clients ({@link HttpClient}), each sending
 * its next call as soon as the last one is answered, against a server with no caps and a fixed
 * latency. After {@code --warmup-s} it counts for {@code --seconds} and prints the completions per
 * second and the p50/p99 of the client-observed latency. With latency L ms and concurrency C the
 * ceiling is {@code C * 1000 / L} per second.
 */
@Command(
    name = "mock-llm-load-check",
    mixinStandardHelpOptions = true,
    description = "Measures the mock provider's throughput with a closed loop of async clients.")
public final class LoadCheck implements Callable<Integer> {

  private static final String BODY =
      "{\"model\":\"gpt-4o-mini\",\"max_tokens\":64,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"Say something short, please.\"}]}";

  @Option(names = "--seconds", defaultValue = "10", description = "Measured time (default: 10).")
  private int seconds;

  @Option(
      names = "--warmup-s",
      defaultValue = "5",
      description = "Unmeasured time before, for the JIT to settle (default: 5).")
  private int warmupSeconds;

  @Option(
      names = "--concurrency",
      defaultValue = "256",
      description = "Calls in flight (default: 256).")
  private int concurrency;

  @Option(
      names = "--latency-ms",
      defaultValue = "50",
      description = "Fixed server latency (default: 50).")
  private int latencyMs;

  @Spec private CommandSpec spec;

  /** Creates the check with picocli's defaults. */
  public LoadCheck() {}

  @Override
  public Integer call() throws Exception {
    if (seconds < 1 || seconds > 600) {
      throw invalid("--seconds must be in the range [1, 600], but was: " + seconds);
    }
    if (warmupSeconds < 0 || warmupSeconds > 60) {
      throw invalid("--warmup-s must be in the range [0, 60], but was: " + warmupSeconds);
    }
    if (concurrency < 1 || concurrency > 10_000) {
      throw invalid("--concurrency must be in the range [1, 10000], but was: " + concurrency);
    }
    if (latencyMs < 0 || latencyMs > MockProviderConfig.MAX_LATENCY_MS) {
      throw invalid(
          "--latency-ms must be in the range [0, "
              + MockProviderConfig.MAX_LATENCY_MS
              + "], but was: "
              + latencyMs);
    }
    MockProviderConfig config =
        MockProviderConfig.builder().latencyMs(latencyMs, latencyMs).maxRecords(10_000_000).build();
    ExecutorService clientThreads = Executors.newFixedThreadPool(2);
    try (MockProvider provider = MockProvider.start(config)) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .executor(clientThreads)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      Loop loop = new Loop(client, URI.create(provider.baseUrl() + "/chat/completions"));
      for (int i = 0; i < concurrency; i++) {
        loop.next();
      }
      Thread.sleep(warmupSeconds * 1000L);
      CpuSnapshot before = CpuSnapshot.take();
      loop.startMeasuring();
      Thread.sleep(seconds * 1000L);
      Result result = loop.stopMeasuring();
      CpuSnapshot after = CpuSnapshot.take();
      loop.drain();
      if (loop.failure() != null) {
        throw new IllegalStateException("a completion callback failed", loop.failure());
      }
      System.out.printf(
          Locale.ROOT,
          "mock-provider load check: latency %d ms, concurrency %d, %d s measured%n"
              + "  completions/s: %.0f (ceiling %.0f)%n"
              + "  client latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
              + "  non-200 answers: %d, transport errors: %d%n"
              + "  CPU per completion: server threads %.0f us, whole process %.0f us"
              + " (%d cores; with them free, the server alone would allow ~%.0f/s)%n"
              + "  system load average (1 min) at the end: %.1f%n",
          latencyMs,
          concurrency,
          seconds,
          result.ok() / result.seconds(),
          concurrency * 1000.0 / Math.max(1, latencyMs),
          result.percentileMs(50),
          result.percentileMs(99),
          result.percentileMs(100),
          result.failed(),
          result.errors(),
          (after.serverNanos() - before.serverNanos()) / 1e3 / Math.max(1, result.ok()),
          (after.processNanos() - before.processNanos()) / 1e3 / Math.max(1, result.ok()),
          Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().availableProcessors()
              * 1e9
              * Math.max(1, result.ok())
              / Math.max(1, after.serverNanos() - before.serverNanos()),
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      return 0;
    } finally {
      clientThreads.shutdownNow();
    }
  }

  /**
   * CPU time used so far by the server's threads (its HTTP dispatcher, handlers and latency
   * scheduler) and by the whole process, in nanoseconds.
   */
  private record CpuSnapshot(long serverNanos, long processNanos) {
    static CpuSnapshot take() {
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long server = 0;
      for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info != null
            && (info.getThreadName().startsWith("mock-provider-")
                || info.getThreadName().startsWith("HTTP-Dispatcher"))) {
          server += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
        }
      }
      long process =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime();
      return new CpuSnapshot(server, process);
    }
  }

  private ParameterException invalid(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** Measured outcome: latencies in nanoseconds of the successful calls. */
  private record Result(long ok, long failed, long errors, double seconds, long[] latencies) {
    double percentileMs(double p) {
      if (latencies.length == 0) {
        return Double.NaN;
      }
      int index = (int) Math.ceil(p / 100.0 * latencies.length) - 1;
      return latencies[Math.max(0, Math.min(latencies.length - 1, index))] / 1e6;
    }
  }

  /** The closed loop: every answer triggers the next call until stopped. */
  private static final class Loop {
    private final HttpClient client;
    private final HttpRequest request;
    private final AtomicLong inFlight = new AtomicLong();
    private final CountDownLatch drained = new CountDownLatch(1);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean measuring;
    private long startNanos;
    private long ok;
    private long failed;
    private long errors;
    private long[] latencies = new long[1 << 16];

    Loop(HttpClient client, URI uri) {
      this.client = client;
      this.request =
          HttpRequest.newBuilder(uri)
              .header("content-type", "application/json")
              .header("x-tenant", "load-check")
              .timeout(Duration.ofSeconds(30))
              .POST(HttpRequest.BodyPublishers.ofString(BODY))
              .build();
    }

    void next() {
      inFlight.incrementAndGet();
      long sent = System.nanoTime();
      // The callback keeps its own failure (see failure()): the future it returns adds nothing.
      CompletableFuture<?> unused =
          client
              .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
              .whenComplete(
                  (response, error) -> {
                    try {
                      answered(response, error, System.nanoTime() - sent);
                    } catch (RuntimeException e) {
                      failure.compareAndSet(null, e);
                    }
                  });
    }

    private void answered(HttpResponse<byte[]> response, Throwable error, long latency) {
      if (measuring) {
        count(response, error, latency);
      }
      if (inFlight.decrementAndGet() == 0 && !running) {
        drained.countDown();
      }
      if (running) {
        next();
      }
    }

    /** The first failure of a completion callback (which ended that caller's loop), or null. */
    RuntimeException failure() {
      return failure.get();
    }

    private synchronized void count(HttpResponse<byte[]> response, Throwable error, long latency) {
      if (error != null) {
        errors++;
      } else if (response.statusCode() != 200) {
        failed++;
      } else {
        if (ok == latencies.length) {
          latencies = Arrays.copyOf(latencies, latencies.length * 2);
        }
        latencies[(int) ok++] = latency;
      }
    }

    synchronized void startMeasuring() {
      startNanos = System.nanoTime();
      measuring = true;
    }

    synchronized Result stopMeasuring() {
      measuring = false;
      running = false;
      double elapsed = (System.nanoTime() - startNanos) / 1e9;
      long[] sorted = Arrays.copyOf(latencies, (int) ok);
      Arrays.sort(sorted);
      return new Result(ok, failed, errors, elapsed, sorted);
    }

    void drain() throws InterruptedException {
      if (inFlight.get() > 0) {
        drained.await(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Runs the check: {@code java -cp ... io.backpressure.mock.LoadCheck --seconds 10}.
   *
   * <p>{@link HttpClient} completes every response on {@code CompletableFuture}'s default executor,
   * which on a machine with fewer than three cores starts a new thread per task; that would make
   * the client, not the server, the bottleneck. So the common pool is given two threads first,
   * unless its parallelism was set on the command line.
   */
  public static void main(String[] args) {
    String parallelism = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(parallelism) == null) {
      System.setProperty(parallelism, "2");
    }
    System.exit(new CommandLine(new LoadCheck()).execute(args));
  }
}
