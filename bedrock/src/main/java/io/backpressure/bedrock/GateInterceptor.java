package io.backpressure.bedrock;

import io.backpressure.client.ClientGate;
import io.backpressure.client.Exchange;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;

/**
 * The gate as an AWS SDK {@link ExecutionInterceptor} of a Bedrock runtime client, synchronous or
 * asynchronous: each {@code Converse} is admitted in {@link #beforeExecution} (before it is
 * marshalled and signed, so a wait for admission does not age the SigV4 signature), its answer's
 * status and headers go to the provider feedback and its {@code usage} releases the grant in {@link
 * #afterExecution}, and a refusal ({@code ThrottlingException} and the others) goes to the feedback
 * with its status, headers and body in {@link #onExecutionFailure}. Other operations pass through.
 * Thread-safe; one instance serves every call of its client.
 */
public final class GateInterceptor implements ExecutionInterceptor {

  private static final ExecutionAttribute<Exchange> EXCHANGE =
      new ExecutionAttribute<>("io.backpressure.bedrock.Exchange");

  private final ClientGate gate;

  public GateInterceptor(ClientGate gate) {
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof ConverseRequest converse) {
      attributes.putAttribute(EXCHANGE, gate.admit(BedrockConverse.json(converse)));
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    Exchange exchange = attributes.getAttribute(EXCHANGE);
    if (exchange == null || !(context.response() instanceof ConverseResponse converse)) {
      return;
    }
    SdkHttpResponse http = context.httpResponse();
    exchange.answered(http.statusCode(), headers(http));
    byte[] usage =
        converse.usage() == null
            ? "{}".getBytes(StandardCharsets.UTF_8)
            : BedrockConverse.usageJson(converse.usage());
    try (InputStream tapped = exchange.tap(new ByteArrayInputStream(usage))) {
      tapped.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
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

  private static Map<String, List<String>> headers(SdkHttpResponse response) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    response
        .headers()
        .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values));
    return headers;
  }
}
