package io.backpressure.mock;

import io.backpressure.mock.limit.Caps;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
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
 * {@code POST /v1beta/models/{model}:generateContent} and {@code :streamGenerateContent?alt=sse}
 * (the Gemini API, also under {@code /v1/}), {@code POST
 * /openai/deployments/{deployment}/chat/completions?api-version=…} (Azure OpenAI), {@code POST
 * /model/{modelId}/converse}, {@code /converse-stream}, {@code /invoke} and {@code
 * /invoke-with-response-stream} (Bedrock, the streams in AWS's event-stream framing), {@code GET
 * /v1/records[?since=SEQ]}, {@code GET /metrics/summary}, {@code GET /health}, and for loopback
 * clients {@code GET|POST /admin/caps} and {@code GET|POST /admin/faults} (see {@link
 * ControlEndpoint}). Both completion endpoints share one set of limiters, whose time origin (and
 * fixed-window alignment) is the moment the server started, and the caps per calendar day ({@link
 * DailyCaps}), which count from midnight in their zone and are answered as each provider answers a
 * spent daily quota. Successful answers, whole or streamed, wait out the simulated latency without
 * holding a thread; 429, 4xx and 500 answers are immediate.
 *
 * <p>The server is Jetty's non-blocking HTTP/1.1 connector with a small thread pool: a request
 * holds a thread only while it is being parsed or decided, never while its client is slow to send
 * (headers, body) or to read, nor while its latency runs, so stalled clients do not delay anyone
 * else. A client that stalls for {@link MockProviderConfig#idleTimeoutMs()} is answered 400 (body
 * incomplete) or disconnected. Headers beyond {@link MockProviderConfig#maxHeaderBytes()} are
 * answered 431, bodies beyond {@link MockProviderConfig#maxBodyBytes()} 413, both in OpenAI's error
 * shape.
 *
 * <p>Thread-safe. {@link #close()} stops listening and drops answers still waiting out their
 * latency.
 */
public final class MockProvider implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MockProvider.class);

  /** Jetty's threads: one acceptor, one selector, and a few to parse and decide requests. */
  private static final int MAX_THREADS = 16;

  private final MockProviderConfig config;
  private final Server server;
  private final ServerConnector connector;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ProviderState state;

  private MockProvider(
      MockProviderConfig config,
      Server server,
      ServerConnector connector,
      ScheduledThreadPoolExecutor scheduler,
      ProviderState state) {
    this.config = config;
    this.server = server;
    this.connector = connector;
    this.scheduler = scheduler;
    this.state = state;
  }

  /**
   * Binds {@code config.host():config.port()} and starts serving.
   *
   * @throws IOException when the address cannot be bound
   */
  public static MockProvider start(MockProviderConfig config) throws IOException {
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(2, daemonThreads("latency"));
    scheduler.setRemoveOnCancelPolicy(true);
    ProviderState state = new ProviderState(config, System.nanoTime());
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 2);
    threads.setName("mock-provider-http");
    threads.setDaemon(true);
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(config.maxHeaderBytes());
    http.setSendServerVersion(false);
    ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(config.host());
    connector.setPort(config.port());
    connector.setIdleTimeout(config.idleTimeoutMs());
    connector.setAcceptQueueSize(1024);
    server.addConnector(connector);
    server.setErrorHandler(new JsonErrorHandler(config.maxHeaderBytes()));
    Endpoint reads = new AdminEndpoint(state);
    Endpoint control = new ControlEndpoint(state);
    Endpoint gemini =
        new CompletionEndpoint(new GeminiDialect(), state, config.maxBodyBytes(), scheduler);
    Endpoint converse =
        new CompletionEndpoint(new BedrockDialect(), state, config.maxBodyBytes(), scheduler);
    Endpoint invoke =
        new CompletionEndpoint(new BedrockInvokeDialect(), state, config.maxBodyBytes(), scheduler);
    Endpoint bedrock =
        exchange ->
            (BedrockInvokeDialect.serves(exchange.path()) ? invoke : converse).serve(exchange);
    server.setHandler(
        new Routes(
            Map.of(
                "/v1/chat/completions",
                new CompletionEndpoint(
                    new OpenAiDialect(), state, config.maxBodyBytes(), scheduler),
                "/v1/messages",
                new CompletionEndpoint(
                    new AnthropicDialect(), state, config.maxBodyBytes(), scheduler),
                AdminEndpoint.RECORDS,
                reads,
                AdminEndpoint.SUMMARY,
                reads,
                AdminEndpoint.HEALTH,
                reads,
                ControlEndpoint.CAPS,
                control,
                ControlEndpoint.FAULTS,
                control),
            Map.of(
                GeminiDialect.PREFIXES.get(0),
                gemini,
                GeminiDialect.PREFIXES.get(1),
                gemini,
                AzureDialect.PREFIX,
                new CompletionEndpoint(new AzureDialect(), state, config.maxBodyBytes(), scheduler),
                BedrockDialect.PREFIX,
                bedrock)));
    try {
      server.start();
    } catch (Exception e) {
      scheduler.shutdownNow();
      stopQuietly(server);
      if (e instanceof IOException io) {
        throw io;
      }
      throw new IOException(
          "cannot start the mock provider on " + config.host() + ":" + config.port(), e);
    }
    if (config.outside().any()) {
      // A periodic task that throws is cancelled without a word: log each failure and go on.
      Future<?> unused =
          scheduler.scheduleAtFixedRate(
              () -> {
                try {
                  state.catchUp();
                } catch (RuntimeException e) {
                  LOG.warn("catching up with the outside traffic failed", e);
                }
              },
              1,
              1,
              TimeUnit.SECONDS);
    }
    MockProvider provider = new MockProvider(config, server, connector, scheduler, state);
    LOG.info("mock provider listening on {}", provider.url());
    return provider;
  }

  /** The configuration it was started with. */
  public MockProviderConfig config() {
    return config;
  }

  /** The bound port (the chosen one when the configuration asked for 0). */
  public int port() {
    return connector.getLocalPort();
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

  /**
   * Changes the caps from now on, keeping what the windows already hold; a {@code null} rate leaves
   * its dimension as it is. Returns the caps now in force.
   *
   * @throws IllegalArgumentException when a rate is out of range or names an uncapped dimension;
   *     nothing changes then
   */
  public Caps setCaps(Caps caps) {
    return state.setCaps(caps);
  }

  /** The caps now in force, as rates per second ({@code null} for an uncapped dimension). */
  public Caps caps() {
    return state.caps();
  }

  /**
   * Changes the caps per calendar day from now on; what the current day has used stays counted, so
   * a lower cap may refuse calls at once.
   */
  public void setDailyCaps(DailyCaps caps) {
    state.setDailyCaps(Objects.requireNonNull(caps, "caps"));
  }

  /** The caps per calendar day now in force. */
  public DailyCaps dailyCaps() {
    return state.dailyCaps();
  }

  /** Switches faults on or off from now on (calls already admitted keep their latency). */
  public void setFaults(Faults faults) {
    state.setFaults(Objects.requireNonNull(faults, "faults"));
  }

  /** The faults switched on. */
  public Faults faults() {
    return state.faults();
  }

  /** Nanoseconds since the server started: the time scale of the records and the windows. */
  public long nanosSinceStart() {
    return state.now();
  }

  /** Stops listening, closes open connections and drops answers still waiting. Idempotent. */
  @Override
  public void close() {
    stopQuietly(server);
    scheduler.shutdownNow();
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.debug("stopping the HTTP server failed", e);
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
