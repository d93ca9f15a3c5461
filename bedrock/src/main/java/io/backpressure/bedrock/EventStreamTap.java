package io.backpressure.bedrock;

import io.backpressure.client.Exchange;
import io.backpressure.client.StreamTally;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.eventstream.HeaderValue;
import software.amazon.awssdk.eventstream.Message;
import software.amazon.awssdk.eventstream.MessageDecoder;

/**
 * The bytes of a streamed answer (an AWS event stream) on their way to the SDK's own decoder, read
 * once more here: each {@code event} message goes to the {@link StreamTally} by its {@code
 * :event-type}, and the grant is released once, with the reported usage when the stream ends, with
 * what the tally proves when it breaks ({@code onError}) or when the SDK cancels it (the caller
 * cancelled its subscription or the call). An exception message (a {@code throttlingException} in
 * the middle of the stream) goes to the provider feedback as the error answer it stands for. The
 * bytes reach the SDK unchanged. Thread-safe: a cancel may come from another thread than the one
 * delivering the bytes.
 */
final class EventStreamTap implements Publisher<ByteBuffer> {

  private final Publisher<ByteBuffer> answer;
  private final StreamTally tally;
  private final Exchange exchange;
  private final MessageDecoder decoder = new MessageDecoder(this::onMessage);
  private boolean done;

  EventStreamTap(Publisher<ByteBuffer> answer, StreamTally tally, Exchange exchange) {
    this.answer = answer;
    this.tally = tally;
    this.exchange = exchange;
  }

  @Override
  public void subscribe(Subscriber<? super ByteBuffer> sdk) {
    answer.subscribe(
        new Subscriber<ByteBuffer>() {
          @Override
          public void onSubscribe(Subscription subscription) {
            sdk.onSubscribe(
                new Subscription() {
                  @Override
                  public void request(long n) {
                    subscription.request(n);
                  }

                  @Override
                  public void cancel() {
                    finish(false);
                    subscription.cancel();
                  }
                });
          }

          @Override
          public void onNext(ByteBuffer bytes) {
            feed(bytes.duplicate());
            sdk.onNext(bytes);
          }

          @Override
          public void onError(Throwable failure) {
            finish(false);
            sdk.onError(failure);
          }

          @Override
          public void onComplete() {
            finish(true);
            sdk.onComplete();
          }
        });
  }

  /** The call failed while its answer streamed: releases with what the stream proved. */
  void broken() {
    finish(false);
  }

  private synchronized void feed(ByteBuffer bytes) {
    if (done) {
      return;
    }
    try {
      decoder.feed(bytes);
    } catch (RuntimeException e) {
      // a malformed frame is the SDK's to report; the tally keeps what it had
    }
  }

  private void onMessage(Message message) {
    HeaderValue type = message.getHeaders().get(":message-type");
    if (type != null && type.getString().equals("exception")) {
      onException(message);
      return;
    }
    HeaderValue event = message.getHeaders().get(":event-type");
    if (type == null || !type.getString().equals("event") || event == null) {
      return;
    }
    try {
      tally.onEvent(event.getString(), new String(message.getPayload(), StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      // a malformed event is the SDK's to report; the tally keeps what it had
    }
  }

  /**
   * An exception message ({@code :exception-type} such as {@code throttlingException}), which ends
   * a stream that began with a 200: to the provider feedback as the answer Bedrock gives the same
   * error before a stream, its status and its type in {@code x-amzn-ErrorType}.
   */
  private void onException(Message message) {
    HeaderValue exception = message.getHeaders().get(":exception-type");
    if (exception == null || exception.getString().isEmpty()) {
      return;
    }
    String name = exception.getString();
    String errorType = Character.toUpperCase(name.charAt(0)) + name.substring(1);
    exchange.refusedMidStream(
        status(errorType),
        Map.of("x-amzn-errortype", List.of(errorType)),
        new String(message.getPayload(), StandardCharsets.UTF_8));
  }

  /** The status Bedrock answers {@code errorType} with before a stream; 500 for another type. */
  static int status(String errorType) {
    return switch (errorType) {
      case "ValidationException" -> 400;
      case "ModelTimeoutException" -> 408;
      case "ModelStreamErrorException" -> 424;
      case "ThrottlingException" -> 429;
      case "ServiceUnavailableException" -> 503;
      default -> 500;
    };
  }

  private synchronized void finish(boolean complete) {
    if (done) {
      return;
    }
    done = true;
    exchange.streamed(tally.usage(complete));
  }
}
