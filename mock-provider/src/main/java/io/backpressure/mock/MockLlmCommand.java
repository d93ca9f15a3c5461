package io.backpressure.mock;

import io.backpressure.mock.limit.CapSchedule;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.WindowModel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure mock-llm}: runs a {@link MockProvider} until interrupted. Caps are given as
 * rates per second and enforced per period: {@code --requests-per-s 60 --period-s 60} allows 3 600
 * requests per aligned minute under {@code --window fixed}.
 */
@Command(
    name = "mock-llm",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a rate-limited, OpenAI-shaped LLM provider on HTTP until interrupted.",
      "Endpoints: POST /v1/chat/completions (OpenAI), POST /v1/messages (Anthropic),",
      "GET /v1/records[?since=N], GET /metrics/summary, GET /health;",
      "for loopback clients GET|POST /admin/caps and GET|POST /admin/faults."
    },
    sortOptions = false)
public class MockLlmCommand implements Callable<Integer> {

  private static final double MAX_RATE = 1e9;
  private static final double MAX_PERIOD_S = 86_400;
  private static final int MIN_BODY_BYTES = 1024;
  private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;
  private static final int MAX_HEADER_BYTES = 1024 * 1024;
  private static final int MIN_IDLE_TIMEOUT_MS = 100;
  private static final int MAX_IDLE_TIMEOUT_MS = 3_600_000;

  @Spec private CommandSpec spec;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}).")
  private String host;

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "TCP port, 0 for any free one (default: ${DEFAULT-VALUE}).")
  private int port;

  @Option(
      names = "--requests-per-s",
      paramLabel = "RATE",
      description = "Requests cap per second (default: uncapped).")
  private Double requestsPerS;

  @Option(
      names = "--tokens-per-s",
      paramLabel = "RATE",
      description = "Tokens cap per second (default: uncapped).")
  private Double tokensPerS;

  @Option(
      names = "--requests-per-day",
      paramLabel = "N",
      description =
          "Requests cap per calendar day, beside the per-period caps; a call over it gets the"
              + " provider's daily-quota answer (default: uncapped).")
  private Long requestsPerDay;

  @Option(
      names = "--tokens-per-day",
      paramLabel = "N",
      description = "Tokens cap per calendar day, likewise (default: uncapped).")
  private Long tokensPerDay;

  @Option(
      names = "--day-zone",
      defaultValue = "UTC",
      paramLabel = "ZONE",
      description =
          "Time zone whose midnight starts a day of the per-day caps, e.g. America/Los_Angeles"
              + " as the Gemini API counts (default: ${DEFAULT-VALUE}).")
  private String dayZone;

  @Option(
      names = "--period-s",
      defaultValue = "1",
      paramLabel = "SECONDS",
      description =
          "Accounting period; the cap per period is rate x period (default: ${DEFAULT-VALUE}).")
  private double periodS;

  @Option(
      names = "--window",
      defaultValue = "fixed",
      paramLabel = "MODEL",
      description = "fixed, sliding or bucket (default: ${DEFAULT-VALUE}).")
  private String window;

  @Option(
      names = "--schedule",
      paramLabel = "AT_S:REQ/S:TOK/S,...",
      description =
          "Cap changes while running: at AT_S seconds after the start the caps become REQ/S and"
              + " TOK/S ('-' leaves one as it is), e.g. 40:30:-,80:60:- (default: none).")
  private String schedule;

  @Option(
      names = "--schedule-file",
      paramLabel = "FILE",
      description =
          "Cap changes read from FILE, one AT_S:REQ/S:TOK/S step a line; blank lines and lines"
              + " starting with # are skipped. Not with --schedule.")
  private Path scheduleFile;

  @Option(
      names = "--outside-rps",
      defaultValue = "0",
      paramLabel = "RATE",
      description =
          "Calls per second from another application on the same caps, evenly spaced, never"
              + " recorded (default: ${DEFAULT-VALUE}).")
  private double outsideRps;

  @Option(
      names = "--outside-tokens-per-s",
      defaultValue = "0",
      paramLabel = "RATE",
      description = "Tokens per second those outside calls spend (default: ${DEFAULT-VALUE}).")
  private double outsideTokensPerS;

  @Option(
      names = "--error-rate",
      defaultValue = "0",
      paramLabel = "SHARE",
      description =
          "Share of calls answered 500 at once, charged nothing, in [0, 1] (default:"
              + " ${DEFAULT-VALUE}).")
  private double errorRate;

  @Option(
      names = "--latency-ms",
      defaultValue = "50,150",
      paramLabel = "MIN[,MAX]",
      description = "Uniform service latency of a 200, in ms (default: ${DEFAULT-VALUE}).")
  private String latencyMs;

  @Option(
      names = "--completion-tokens",
      defaultValue = "50",
      paramLabel = "N|A..B",
      description =
          "Completion tokens per call, fixed or uniform; clamped by max_tokens (default:"
              + " ${DEFAULT-VALUE}).")
  private String completionTokens;

  @Option(
      names = "--rejected-count",
      description = "Count 429 answers against the caps, as OpenAI documents.")
  private boolean rejectedCount;

  @Option(
      names = "--charge",
      defaultValue = "actual",
      paramLabel = "MODE",
      description =
          "actual (prompt + completion) or max-tokens (max(max_tokens, prompt) at admission)"
              + " (default: ${DEFAULT-VALUE}).")
  private String charge;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the latency and completion-token draws (default: ${DEFAULT-VALUE}).")
  private long seed;

  @Option(
      names = "--max-body-bytes",
      defaultValue = "1048576",
      paramLabel = "BYTES",
      description = "Largest request body accepted; larger get 413 (default: ${DEFAULT-VALUE}).")
  private int maxBodyBytes;

  @Option(
      names = "--max-header-bytes",
      defaultValue = "16384",
      paramLabel = "BYTES",
      description =
          "Largest request line and headers accepted; larger get 431 (default: ${DEFAULT-VALUE}).")
  private int maxHeaderBytes;

  @Option(
      names = "--idle-timeout-ms",
      defaultValue = "30000",
      paramLabel = "MS",
      description =
          "How long a silent connection is kept; a body still incomplete then gets 400 (default:"
              + " ${DEFAULT-VALUE}).")
  private int idleTimeoutMs;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description = "Also serve Prometheus metrics at http://HOST:PORT/metrics (default: off).")
  private Integer metricsPort;

  /** Creates the command with picocli's defaults; picocli fills the options. */
  public MockLlmCommand() {}

  @Override
  public Integer call() throws Exception {
    MockProviderConfig config = config();
    PrintWriter out = spec.commandLine().getOut();
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
      throw invalid("--metrics-port must be in the range [0, 65535], but was: " + metricsPort);
    }
    MockProvider provider = MockProvider.start(config);
    MetricsServer metrics =
        metricsPort == null
            ? null
            : MetricsServer.start(MockMetrics.registry(provider), config.host(), metricsPort);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println(
                      "mock-llm stopping: " + AdminEndpoint.summaryJson(provider.summary()));
                  out.flush();
                  if (metrics != null) {
                    metrics.close();
                  }
                  provider.close();
                  stopped.countDown();
                },
                "mock-llm-shutdown"));
    out.println("mock-llm listening on " + provider.url());
    out.println("OpenAI base URL: " + provider.baseUrl() + "   caps: " + describe(config));
    if (metrics != null) {
      out.println("Prometheus metrics: " + metrics.url());
    }
    out.flush();
    stopped.await();
    return 0;
  }

  /**
   * The server configuration these options describe.
   *
   * @throws ParameterException naming the option and its allowed range
   */
  MockProviderConfig config() {
    WindowModel model = parse("--window", () -> WindowModel.parse(window));
    if (!(periodS > 0) || periodS > MAX_PERIOD_S) {
      throw invalid("--period-s must be in the range (0, 86400], but was: " + periodS);
    }
    Duration period = Duration.ofNanos(Math.round(periodS * 1e9));
    int[] latency = latencyBounds();
    if (host.isBlank()) {
      throw invalid("--host must not be blank");
    }
    if (port < 0 || port > 65_535) {
      throw invalid("--port must be in the range [0, 65535], but was: " + port);
    }
    if (maxBodyBytes < MIN_BODY_BYTES || maxBodyBytes > MAX_BODY_BYTES) {
      throw invalid(
          "--max-body-bytes must be in the range ["
              + MIN_BODY_BYTES
              + ", "
              + MAX_BODY_BYTES
              + "], but was: "
              + maxBodyBytes);
    }
    if (maxHeaderBytes < MIN_BODY_BYTES || maxHeaderBytes > MAX_HEADER_BYTES) {
      throw invalid(
          "--max-header-bytes must be in the range ["
              + MIN_BODY_BYTES
              + ", "
              + MAX_HEADER_BYTES
              + "], but was: "
              + maxHeaderBytes);
    }
    if (idleTimeoutMs < MIN_IDLE_TIMEOUT_MS || idleTimeoutMs > MAX_IDLE_TIMEOUT_MS) {
      throw invalid(
          "--idle-timeout-ms must be in the range ["
              + MIN_IDLE_TIMEOUT_MS
              + ", "
              + MAX_IDLE_TIMEOUT_MS
              + "], but was: "
              + idleTimeoutMs);
    }
    if (!(errorRate >= 0) || errorRate > 1) {
      throw invalid("--error-rate must be in the range [0, 1], but was: " + errorRate);
    }
    MockProviderConfig.Builder builder =
        MockProviderConfig.builder()
            .host(host)
            .port(port)
            .requests(cap("--requests-per-s", requestsPerS, model, period))
            .tokens(cap("--tokens-per-s", tokensPerS, model, period))
            .rejectedCount(rejectedCount)
            .chargeMode(parse("--charge", () -> ChargeMode.parse(charge)))
            .completionTokens(
                parse("--completion-tokens", () -> CompletionTokens.parse(completionTokens)))
            .latencyMs(latency[0], latency[1])
            .seed(seed)
            .maxBodyBytes(maxBodyBytes)
            .maxHeaderBytes(maxHeaderBytes)
            .idleTimeoutMs(idleTimeoutMs)
            .schedule(capSchedule())
            .outside(
                parse("--outside-rps", () -> new OutsideTraffic(outsideRps, outsideTokensPerS)))
            .errorRate(errorRate)
            .daily(dailyCaps());
    // What is left to check here is whether the schedule fits the caps.
    return parse(scheduleFile == null ? "--schedule" : "--schedule-file", builder::build);
  }

  private DailyCaps dailyCaps() {
    ZoneId zone;
    try {
      zone = ZoneId.of(dayZone);
    } catch (DateTimeException e) {
      throw invalid(
          "--day-zone must be a time zone such as UTC or America/Los_Angeles, but was: " + dayZone);
    }
    checkDaily("--requests-per-day", requestsPerDay);
    checkDaily("--tokens-per-day", tokensPerDay);
    return new DailyCaps(requestsPerDay, tokensPerDay, zone);
  }

  private void checkDaily(String option, Long cap) {
    if (cap != null && (cap < 1 || cap > DailyCaps.MAX)) {
      throw invalid(option + " must be in the range [1, " + DailyCaps.MAX + "], but was: " + cap);
    }
  }

  private CapSchedule capSchedule() {
    if (schedule != null && scheduleFile != null) {
      throw invalid("--schedule and --schedule-file cannot both be given");
    }
    if (scheduleFile == null) {
      return parse("--schedule", () -> CapSchedule.parse(schedule));
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(scheduleFile);
    } catch (IOException e) {
      throw invalid("--schedule-file: cannot read " + scheduleFile + ": " + e.getMessage());
    }
    String steps =
        lines.stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .collect(Collectors.joining(","));
    return parse("--schedule-file " + scheduleFile, () -> CapSchedule.parse(steps));
  }

  private LimitSpec cap(String option, Double ratePerS, WindowModel model, Duration period) {
    if (ratePerS == null) {
      return null;
    }
    if (!(ratePerS > 0) || ratePerS > MAX_RATE) {
      throw invalid(option + " must be in the range (0, 1e9], but was: " + ratePerS);
    }
    if (option.equals("--requests-per-s") && ratePerS * periodS < 1) {
      throw invalid(
          "--requests-per-s x --period-s must allow at least 1 request per period, but was: "
              + ratePerS * periodS);
    }
    return parse(option, () -> LimitSpec.of(model, ratePerS * periodS, period));
  }

  private int[] latencyBounds() {
    String[] parts = latencyMs.split(",", -1);
    if (parts.length <= 2 && parts[0].strip().matches("\\d{1,9}")) {
      int min = Integer.parseInt(parts[0].strip());
      String second = parts[parts.length - 1].strip();
      int max = second.matches("\\d{1,9}") ? Integer.parseInt(second) : -1;
      if (min <= max && max <= MockProviderConfig.MAX_LATENCY_MS) {
        return new int[] {min, max};
      }
    }
    throw invalid(
        "--latency-ms must be MIN or MIN,MAX with 0 <= MIN <= MAX <= "
            + MockProviderConfig.MAX_LATENCY_MS
            + ", but was: "
            + latencyMs);
  }

  private <T> T parse(String option, Supplier<T> parser) {
    try {
      return parser.get();
    } catch (IllegalArgumentException e) {
      throw invalid(option + ": " + e.getMessage());
    }
  }

  private ParameterException invalid(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private static String describe(MockProviderConfig config) {
    return "requests="
        + (config.requests() == null ? "uncapped" : describe(config.requests()))
        + ", tokens="
        + (config.tokens() == null ? "uncapped" : describe(config.tokens()))
        + ", latency="
        + config.latencyMinMs()
        + ".."
        + config.latencyMaxMs()
        + "ms, completion="
        + config.completionTokens()
        + ", charge="
        + config.chargeMode()
        + ", rejected-count="
        + config.rejectedCount()
        + (config.schedule().steps().isEmpty()
            ? ""
            : ", schedule=" + config.schedule().steps().size() + " steps")
        + (config.outside().any()
            ? ", outside="
                + config.outside().requestsPerS()
                + " req/s "
                + config.outside().tokensPerS()
                + " tok/s"
            : "")
        + (config.errorRate() > 0 ? ", error-rate=" + config.errorRate() : "")
        + (config.daily().any()
            ? ", per-day="
                + (config.daily().requests() == null ? "-" : config.daily().requests())
                + " req "
                + (config.daily().tokens() == null ? "-" : config.daily().tokens())
                + " tok in "
                + config.daily().zone()
            : "");
  }

  private static String describe(LimitSpec spec) {
    return RateLimitFormat.limit(spec.limitPerPeriod())
        + "/"
        + RateLimitFormat.duration(spec.periodNanos())
        + " "
        + spec.model().label();
  }

  /**
   * Runs the command on its own: {@code java ... io.backpressure.mock.MockLlmCommand --port 8080}.
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new MockLlmCommand()).execute(args));
  }
}
