package io.backpressure.bedrock;

import io.backpressure.client.ClientGate;
import io.backpressure.client.Exchange;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.RequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelWithResponseStreamRequest;

/**
 * The gate as an AWS SDK {@link ExecutionInterceptor} of a Bedrock runtime client, synchronous or
 * asynchronous. For {@code Converse}, {@code ConverseStream}, {@code InvokeModel} and {@code
 * InvokeModelWithResponseStream}:
 *
 * <ul>
 *   <li>{@link #beforeExecution}: the call is admitted before it is marshalled and signed (a wait
 *       for admission does not age the SigV4 signature), its cost read from the modelled request; a
 *       call that a client {@link GatedBedrock} built sends again after a refusal comes with the
 *       gate's new grant, which is used instead. The SDK's timeout for the call (the shorter of its
 *       {@code apiCallTimeout} and {@code apiCallAttemptTimeout}, the request's own override or
 *       else the client's) is its deadline for the answer, the shortest of it, the caller's ({@code
 *       GateContext.withDeadline}) and the client builder's winning: a call whose turn would come
 *       after it fails with the admitter's {@code ExpiredException} at once, unsent;
 *   <li>{@link #modifyHttpRequest}: the last hook before the request is signed and sent; a call
 *       that reaches it later than its gate's {@code sendWithin()} after its admission (a cold
 *       client's first call, a thread that was descheduled) gives its grant back unused and is
 *       admitted again ({@link ClientGate#inTime}), so that calls admitted in different windows of
 *       the provider do not arrive in one; a call not admitted the second time fails with the
 *       admitter's exception and is not sent. The request itself is not changed;
 *   <li>{@link #afterExecution} (whole answers): the status and headers go to the provider
 *       feedback, and the grant is released with Converse's {@code usage}, or InvokeModel's {@code
 *       x-amzn-bedrock-input-token-count} and {@code -output-token-count} headers;
 *   <li>{@link #modifyAsyncHttpResponseContent} (streams, asynchronous client only): a 2xx answer's
 *       status and headers go to the feedback and its bytes are tapped on their way to the SDK's
 *       decoder ({@link EventStreamTap}): the grant is released with ConverseStream's {@code
 *       metadata} usage or InvokeModelWithResponseStream's {@code
 *       amazon-bedrock-invocationMetrics}, or, when the stream breaks or is cancelled, with what it
 *       proved;
 *   <li>{@link #onExecutionFailure}: a refusal ({@code ThrottlingException} and the others) goes to
 *       the feedback with its status, headers and body, and the grant is released as failed; a
 *       client {@link GatedBedrock} built then asks the gate again after a 429 or a stop, and sends
 *       the call again when admitted.
 * </ul>
 *
 * Other operations pass through. Thread-safe; one instance serves every call of its client.
 */
public final class GateInterceptor implements ExecutionInterceptor {

  private static final ExecutionAttribute<Exchange> EXCHANGE =
      new ExecutionAttribute<>("io.backpressure.bedrock.Exchange");
  private static final ExecutionAttribute<Resending.Attempt> ATTEMPT =
      new ExecutionAttribute<>("io.backpressure.bedrock.Attempt");
  private static final ExecutionAttribute<EventStreamTap> TAP =
      new ExecutionAttribute<>("io.backpressure.bedrock.EventStreamTap");

  private final ClientGate gate;
  private final @Nullable Duration callTimeout;
  private final @Nullable Duration attemptTimeout;

  /** The gate alone: a call's deadline is its request's own timeouts, if it has any. */
  public GateInterceptor(ClientGate gate) {
    this(gate, ClientOverrideConfiguration.builder().build());
  }

  /**
   * The gate of a client whose override configuration is {@code client}: its {@code apiCallTimeout}
   * and {@code apiCallAttemptTimeout} are the deadline of a call whose request does not override
   * them.
   */
  public GateInterceptor(ClientGate gate, ClientOverrideConfiguration client) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.callTimeout = client.apiCallTimeout().orElse(null);
    this.attemptTimeout = client.apiCallAttemptTimeout().orElse(null);
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    Resending.Attempt attempt = Resending.take();
    byte[] call = call(context.request());
    if (call == null) {
      return;
    }
    Exchange readmitted = attempt == null ? null : attempt.readmitted();
    Exchange exchange =
        readmitted == null
            ? gate.admit(call, name -> null, timeout(context.request()))
            : readmitted;
    attributes.putAttribute(EXCHANGE, exchange);
    if (attempt != null) {
      attempt.sending(exchange);
      attributes.putAttribute(ATTEMPT, attempt);
    }
  }

  @Override
  public SdkHttpRequest modifyHttpRequest(
      Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
    Exchange exchange = attributes.getAttribute(EXCHANGE);
    if (exchange != null && !exchange.released()) {
      Exchange inTime = gate.inTime(exchange);
      attributes.putAttribute(EXCHANGE, inTime);
      Resending.Attempt attempt = attributes.getAttribute(ATTEMPT);
      if (attempt != null) {
        attempt.sending(inTime);
      }
    }
    return context.httpRequest();
  }

  /**
   * The SDK's timeout for {@code request}: the shorter of its API call timeout and its attempt
   * timeout, each the request's own ({@code overrideConfiguration}) or else the client's; null when
   * neither is set. The SDK's retries are off in the clients {@link GatedBedrock} builds, so the
   * first attempt is the whole call.
   */
  private @Nullable Duration timeout(SdkRequest request) {
    Optional<? extends RequestOverrideConfiguration> own = request.overrideConfiguration();
    Duration call = own.flatMap(RequestOverrideConfiguration::apiCallTimeout).orElse(callTimeout);
    Duration attempt =
        own.flatMap(RequestOverrideConfiguration::apiCallAttemptTimeout).orElse(attemptTimeout);
    return shortest(call, attempt);
  }

  private static @Nullable Duration shortest(@Nullable Duration a, @Nullable Duration b) {
    return a == null || (b != null && b.compareTo(a) < 0) ? b : a;
  }

  /** What {@link BedrockRuntime#read} reads of {@code request}; null when it is not gated. */
  private static byte[] call(SdkRequest request) {
    if (request instanceof ConverseRequest converse) {
      return BedrockRuntime.converse(
          converse.modelId(),
          false,
          converse.messages(),
          converse.system(),
          converse.inferenceConfig());
    }
    if (request instanceof ConverseStreamRequest converse) {
      return BedrockRuntime.converse(
          converse.modelId(),
          true,
          converse.messages(),
          converse.system(),
          converse.inferenceConfig());
    }
    if (request instanceof InvokeModelRequest invoke) {
      return BedrockRuntime.invoke(invoke.modelId(), false, invoke.body());
    }
    if (request instanceof InvokeModelWithResponseStreamRequest invoke) {
      return BedrockRuntime.invoke(invoke.modelId(), true, invoke.body());
    }
    return null;
  }

  @Override
  public Optional<Publisher<ByteBuffer>> modifyAsyncHttpResponseContent(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    Exchange exchange = attributes.getAttribute(EXCHANGE);
    Optional<Publisher<ByteBuffer>> answer = context.responsePublisher();
    SdkHttpResponse http = context.httpResponse();
    if (exchange == null
        || !exchange.call().stream()
        || answer.isEmpty()
        || !http.isSuccessful()
        || exchange.released()) {
      return answer;
    }
    exchange.answered(http.statusCode(), headers(http));
    EventStreamTap tap =
        new EventStreamTap(answer.get(), BedrockRuntime.INSTANCE.tally(exchange.call()), exchange);
    attributes.putAttribute(TAP, tap);
    return Optional.of(tap);
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    Exchange exchange = attributes.getAttribute(EXCHANGE);
    if (exchange == null || exchange.call().stream() || exchange.released()) {
      return;
    }
    SdkHttpResponse http = context.httpResponse();
    exchange.answered(http.statusCode(), headers(http));
    byte[] usage;
    if (context.response() instanceof ConverseResponse converse && converse.usage() != null) {
      usage =
          BedrockRuntime.usageJson(converse.usage().inputTokens(), converse.usage().outputTokens());
    } else {
      Optional<String> input = http.firstMatchingHeader("x-amzn-bedrock-input-token-count");
      Optional<String> output = http.firstMatchingHeader("x-amzn-bedrock-output-token-count");
      usage =
          input.isPresent() && output.isPresent()
              ? usageFromHeaders(input.get(), output.get())
              : "{}".getBytes(StandardCharsets.UTF_8);
    }
    try (InputStream tapped = exchange.tap(new ByteArrayInputStream(usage))) {
      tapped.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] usageFromHeaders(String input, String output) {
    try {
      return BedrockRuntime.usageJson(Long.parseLong(input.trim()), Long.parseLong(output.trim()));
    } catch (NumberFormatException e) {
      return "{}".getBytes(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    EventStreamTap tap = attributes.getAttribute(TAP);
    if (tap != null) {
      tap.broken();
    }
    Exchange exchange = attributes.getAttribute(EXCHANGE);
    if (exchange == null || exchange.released()) {
      return;
    }
    if (context.exception() instanceof AwsServiceException refused
        && refused.awsErrorDetails() != null
        && refused.awsErrorDetails().sdkHttpResponse() != null) {
      AwsErrorDetails details = refused.awsErrorDetails();
      String body = details.rawResponse() == null ? null : details.rawResponse().asUtf8String();
      exchange.answered(refused.statusCode(), headers(details.sdkHttpResponse()), body);
    } else {
      exchange.failed(context.exception());
    }
  }

  /** The headers of {@code response}, names in lower case. */
  static Map<String, List<String>> headers(SdkHttpResponse response) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    response
        .headers()
        .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values));
    return headers;
  }
}
