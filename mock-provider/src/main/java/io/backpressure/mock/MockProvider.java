package io.backpressure.mock;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rate-limited LLM provider on loopback HTTP, for tests and the evaluation.
 *
 * <pre>{@code
 * try (MockProvider provider = MockProvider.start(MockProviderConfig.builder()
 *     .requests(LimitSpec.perSecond(WindowModel.FIXED, 60))
 *     .tokens(LimitSpec.perSecond(WindowModel.FIXED, 12_000))
 *     .build())) {
 *   OpenAIClient client = OpenAIOkHttpClient.builder()
 *       .baseUrl(provider.baseUrl()).apiKey("unused").build();
 *   ...
 *   List<RequestRecord> log = provider.records();
 * }
 * }</pre>
 *
 * <p>Endpoints: {@code POST /v1/chat/completions} (OpenAI), {@code POST /v1/messages} (Anthropic),
 * {@code GET /v1/records[?since=SEQ]}, {@code GET /metrics/summary}, {@code GET /health}. Both
 * completion endpoints share one set of limiters, whose time origin (and fixed-window alignment) is
 * the moment the server started. Successful answers wait out the simulated latency without holding
 * a thread; 429 and 400 answers are immediate.
 *
 * <p>Two defaults of the JDK's HTTP server do not suit a load test, so this class changes them when
 * it is first loaded, unless they are already set: {@code sun.net.httpserver.nodelay=true} (else
 * small responses wait up to 40 ms for Nagle's algorithm against delayed acknowledgements) and
 * {@code sun.net.httpserver.maxIdleConnections=10000} (else keep-alive connections beyond 200 are
 * closed and every call on them pays a new TCP connection).
 *
 * <p>Thread-safe. {@link #close()} stops listening and drops answers still waiting out their
 * latency.
 */
public final class MockProvider implements AutoCloseable {

  static {
    setIfAbsent("sun.net.httpserver.nodelay", "true");
    setIfAbsent("sun.net.httpserver.maxIdleConnections", "10000");
  }

  private static final Logger LOG = LoggerFactory.getLogger(MockProvider.class);

  private final MockProviderConfig config;
  private final HttpServer server;
  private final ExecutorService handlers;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ProviderState state;

  private MockProvider(
      MockProviderConfig config,
      HttpServer server,
      ExecutorService handlers,
      ScheduledThreadPoolExecutor scheduler,
      ProviderState state) {
    this.config = config;
    this.server = server;
    this.handlers = handlers;
    this.scheduler = scheduler;
    this.state = state;
  }

  /**
   * Binds {@code config.host():config.port()} and starts serving.
   *
   * @throws IOException when the address cannot be bound
   */
  public static MockProvider start(MockProviderConfig config) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 512);
    int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    ExecutorService handlers = Executors.newFixedThreadPool(threads, daemonThreads("http"));
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(2, daemonThreads("latency"));
    ProviderState state = new ProviderState(config, System.nanoTime());
    server.setExecutor(handlers);
    server.createContext(
        "/v1/chat/completions",
        new CompletionEndpoint(
            "/v1/chat/completions", new OpenAiDialect(), state, config.maxBodyBytes(), scheduler));
    server.createContext(
        "/v1/messages",
        new CompletionEndpoint(
            "/v1/messages", new AnthropicDialect(), state, config.maxBodyBytes(), scheduler));
    server.createContext("/", new AdminEndpoint(state));
    server.start();
    MockProvider provider = new MockProvider(config, server, handlers, scheduler, state);
    LOG.info("mock provider listening on {}", provider.url());
    return provider;
  }

  /** The configuration it was started with. */
  public MockProviderConfig config() {
    return config;
  }

  /** The bound port (the chosen one when the configuration asked for 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://host:port}, without a trailing slash. */
  public String url() {
    String host = config.host();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
  }

  /** {@code http://host:port/v1}: the base URL an OpenAI client takes. */
  public String baseUrl() {
    return url() + "/v1";
  }

  /** Every kept record, oldest first; an immutable snapshot. */
  public List<RequestRecord> records() {
    return state.records(0);
  }

  /** The kept records with {@code seq >= since}, oldest first; an immutable snapshot. */
  public List<RequestRecord> records(long since) {
    return state.records(since);
  }

  /** Totals since the start. */
  public Summary summary() {
    return state.summary();
  }

  /** Nanoseconds since the server started: the time scale of the records and the windows. */
  public long nanosSinceStart() {
    return state.now();
  }

  /** Stops listening, closes open connections and drops answers still waiting. Idempotent. */
  @Override
  public void close() {
    server.stop(0);
    scheduler.shutdownNow();
    handlers.shutdownNow();
  }

  private static void setIfAbsent(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  private static ThreadFactory daemonThreads(String role) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "mock-provider-" + role + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
