package io.backpressure.bedrock;

import io.backpressure.client.ClientGate;
import io.backpressure.client.Exchange;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.eventstream.EventStreamResponseHandler;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * The client {@link GatedBedrock} hands out: a proxy of the SDK's client interface that sends every
 * call to the SDK's client and, when the provider refused a gated call with a 429 or a stop ({@link
 * ClientGate#resends}), asks the gate again and sends the call again once admitted, as the other
 * SDKs' gated transports do. The {@link GateInterceptor} has by then handed the refusal to the
 * feedback and released the grant; the gate's new answer (a deferral until the provider's
 * retry-after, a refusal until a stop's reset, or a grant) comes from {@link ClientGate#again},
 * through the client's admitter. When it is not a grant, the caller gets the admitter's exception
 * instead of the provider's refusal, and nothing more is sent.
 *
 * <p>The new grant reaches the interceptor of the next execution through {@link Attempt}: the proxy
 * starts each execution on the thread it calls the SDK's client from, and the SDK runs {@code
 * beforeExecution} on that thread, for the synchronous and the asynchronous clients alike.
 *
 * <ul>
 *   <li>A synchronous call asks again on the calling thread, so a waiting admitter sleeps there,
 *       before the request is signed again.
 *   <li>An asynchronous call asks again on the thread that completes its future, so pair an
 *       asynchronous client with {@code Admitter.direct()}: a deferral then fails the future with
 *       the gate's {@code DeferredException}.
 *   <li>An event stream's handler ({@code ConverseStreamResponseHandler}, {@code
 *       InvokeModelWithResponseStreamResponseHandler}) does not hear a refusal that is sent again:
 *       a 429 comes before any event, and the handler hears the stream of the call sent again, or
 *       the gate's exception.
 * </ul>
 *
 * Every other method of the client passes through. Thread-safe.
 */
final class Resending implements InvocationHandler {

  /** The execution this thread starts through a proxy, for the interceptor to {@link #take}. */
  private static final ThreadLocal<@Nullable Attempt> STARTING = new ThreadLocal<>();

  /**
   * One execution of a call through a proxy: the grant it is to be sent with when the gate was
   * asked again, and the exchange the interceptor sent it with.
   */
  static final class Attempt {
    private final @Nullable Exchange readmitted;
    private final int resends;
    private volatile @Nullable Exchange sent;

    private Attempt(@Nullable Exchange readmitted, int resends) {
      this.readmitted = readmitted;
      this.resends = resends;
    }

    /** The exchange of the gate's new answer, to be sent instead of admitting the call; or null. */
    @Nullable Exchange readmitted() {
      return readmitted;
    }

    /** The interceptor sends the call with {@code exchange} (after any late re-admission). */
    void sending(Exchange exchange) {
      this.sent = exchange;
    }
  }

  /**
   * The execution the calling thread is starting through a proxy, once: a nested execution on the
   * same thread gets null, as does an execution outside any proxy.
   */
  static @Nullable Attempt take() {
    Attempt attempt = STARTING.get();
    STARTING.remove();
    return attempt;
  }

  private final Object client;
  private final ClientGate gate;

  private Resending(Object client, ClientGate gate) {
    this.client = client;
    this.gate = gate;
  }

  /** {@code client}, as {@code type}, sending a refused gated call again through {@code gate}. */
  static <T> T proxy(Class<T> type, T client, ClientGate gate) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(), new Class<?>[] {type}, new Resending(client, gate)));
  }

  @Override
  public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args)
      throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "equals" -> args != null && proxy == args[0];
        case "hashCode" -> System.identityHashCode(proxy);
        default -> "gated " + client;
      };
    }
    if (CompletableFuture.class.isAssignableFrom(method.getReturnType())) {
      CompletableFuture<Object> result = new CompletableFuture<>();
      sendAsync(method, args, null, 0, result);
      return result;
    }
    Exchange readmitted = null;
    for (int resends = 0; ; resends++) {
      Attempt attempt = new Attempt(readmitted, resends);
      try {
        return start(method, args, attempt);
      } catch (AwsServiceException refused) {
        Exchange sent = resent(attempt, refused);
        if (sent == null) {
          throw refused;
        }
        readmitted = gate.again(sent);
      }
    }
  }

  /**
   * Sends the asynchronous call, completing {@code result} with its answer, or after a refusal to
   * send again with the answer of the call sent again.
   */
  // The callbacks complete result, which the caller holds; what they return is waited on by none.
  @SuppressWarnings("FutureReturnValueIgnored")
  private void sendAsync(
      Method method,
      @Nullable Object[] args,
      @Nullable Exchange readmitted,
      int resends,
      CompletableFuture<Object> result) {
    Attempt attempt = new Attempt(readmitted, resends);
    @Nullable Object[] sentArgs = args == null ? null : args.clone();
    EventStreamResponseHandler<?, ?> handler = null;
    if (sentArgs != null) {
      Class<?>[] types = method.getParameterTypes();
      for (int i = 0; i < sentArgs.length; i++) {
        if (sentArgs[i] instanceof EventStreamResponseHandler<?, ?> own && types[i].isInterface()) {
          handler = own;
          sentArgs[i] = quietOnResend(types[i], own, attempt);
        }
      }
    }
    CompletableFuture<?> answer;
    try {
      answer = (CompletableFuture<?>) start(method, sentArgs, attempt);
    } catch (Throwable e) {
      result.completeExceptionally(e);
      return;
    }
    EventStreamResponseHandler<?, ?> told = handler;
    answer.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
            return;
          }
          Throwable cause = unwrapped(failure);
          Exchange sent = resent(attempt, cause);
          if (sent == null) {
            result.completeExceptionally(cause);
            return;
          }
          Exchange next;
          try {
            next = gate.again(sent);
          } catch (RuntimeException notAdmitted) {
            try {
              if (told != null) {
                told.exceptionOccurred(notAdmitted);
              }
            } finally {
              result.completeExceptionally(notAdmitted);
            }
            return;
          }
          sendAsync(method, args, next, resends + 1, result);
        });
    result.whenComplete(
        (value, failure) -> {
          if (result.isCancelled()) {
            answer.cancel(false);
          }
        });
  }

  /**
   * {@code handler} as {@code type}, except that it does not hear a refusal that the call is sent
   * again after: the handler of the call sent again hears its stream.
   */
  private Object quietOnResend(
      Class<?> type, EventStreamResponseHandler<?, ?> handler, Attempt at) {
    return Proxy.newProxyInstance(
        type.getClassLoader(),
        new Class<?>[] {type},
        (proxy, method, args) -> {
          if (method.getName().equals("exceptionOccurred")
              && args != null
              && args.length == 1
              && args[0] instanceof Throwable failure
              && resent(at, unwrapped(failure)) != null) {
            return null;
          }
          return call(method, handler, args);
        });
  }

  /** Starts {@code method} on the SDK's client with {@code attempt} for its interceptor. */
  private @Nullable Object start(Method method, @Nullable Object[] args, Attempt attempt)
      throws Throwable {
    STARTING.set(attempt);
    try {
      return call(method, client, args);
    } finally {
      Attempt untaken = take();
      if (untaken != null && untaken.readmitted != null) {
        // The SDK failed before the interceptor saw the call: nothing was sent.
        untaken.readmitted.failed(new IllegalStateException("the call was not executed"));
      }
    }
  }

  private static @Nullable Object call(Method method, Object target, @Nullable Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * The exchange that {@code failure} refused, when the call is to ask the gate again ({@link
   * ClientGate#resends}); null when {@code failure} is to reach the caller.
   */
  private @Nullable Exchange resent(Attempt attempt, Throwable failure) {
    Exchange sent = attempt.sent;
    if (sent == null
        || !(failure instanceof AwsServiceException refused)
        || refused.awsErrorDetails() == null
        || refused.awsErrorDetails().sdkHttpResponse() == null) {
      return null;
    }
    AwsErrorDetails details = refused.awsErrorDetails();
    String body = details.rawResponse() == null ? null : details.rawResponse().asUtf8String();
    return gate.resends(
            refused.statusCode(),
            GateInterceptor.headers(details.sdkHttpResponse()),
            body,
            attempt.resends)
        ? sent
        : null;
  }

  private static Throwable unwrapped(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
