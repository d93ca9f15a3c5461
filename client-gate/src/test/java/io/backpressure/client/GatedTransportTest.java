package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.GatedTransport.AnswerView;
import io.backpressure.client.GatedTransport.RequestView;
import io.backpressure.client.GatedTransport.TappedBody;
import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import io.backpressure.core.testing.RecordingGate;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link GatedTransport} with an SDK of plain records: a call that is not sent within its gate's
 * {@code sendWithin()} (50 ms here, on a virtual clock) gives its grant back and asks again, and
 * after a 429 the call asks again; neither second ask presents the booking the call came with,
 * which its first admission redeemed.
 */
class GatedTransportTest {
  private static final byte[] BODY =
      "{\"model\":\"gpt-4o\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] ANSWER =
      "{\"usage\":{\"in\":10,\"out\":5}}".getBytes(StandardCharsets.UTF_8);

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o")
                  .dimension("requests", 1, 1)
                  .tokensPerSecond(10_000)
                  .priority("P1", 1)
                  .safeWindow(Duration.ofSeconds(1))
                  .build(),
              clock));

  /** Virtual time that passes right after an admission, once, as for a descheduled thread. */
  private Duration stall = Duration.ZERO;

  /**
   * The clock as the transport reads it: the first read after {@link #stall} is set lets it pass.
   */
  private final Ticker stalling =
      () -> {
        long now = clock.nanoTime();
        clock.advance(stall);
        stall = Duration.ZERO;
        return now;
      };

  /** The requests as they were sent. */
  private final List<Sent> sent = new ArrayList<>();

  private record Sent(Map<String, String> headers, byte[] body) {}

  private record Answer(int status, Map<String, List<String>> headers, byte[] body) {}

  private final GatedTransport<Sent, Answer> transport =
      new GatedTransport<>(
          ClientGate.builder(new TestDialect()).gate(gate).ticker(stalling).build(), new Records());

  /** Spends the one request of the first virtual second, so the next call is deferred. */
  private String deferredBooking() {
    gate.release(
        ((Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1).tokens(10))).grant(),
        Cost.requests(1).tokens(10));
    Admission deferred = gate.admit("acme", "P1", Cost.requests(1).tokens(10));
    assertThat(deferred).isInstanceOf(Admission.Deferred.class);
    clock.advance(((Admission.Deferred) deferred).retryAfter());
    return ((Admission.Deferred) deferred).booking();
  }

  private static Sent unbooked() {
    return new Sent(GateContext.of("acme", "P1").headers(), BODY);
  }

  private static Sent request(String booking) {
    Map<String, String> headers = new LinkedHashMap<>(GateContext.of("acme", "P1").headers());
    headers.put(GateContext.BOOKING_HEADER, booking);
    return new Sent(headers, BODY);
  }

  @Test
  void aCallSentInTimeIsAdmittedOnceWithItsBooking() {
    String booking = deferredBooking();

    Answer answer = transport.execute(request(booking), this::ok);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(gate.requests()).hasSize(3);
    assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
    assertThat(sent).singleElement().satisfies(s -> assertThat(s.headers()).isEmpty());
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * The late call's grant goes back unused, which frees its place, and the second ask is admitted
   * and sent. Mutation tried: the late call asks again through the request's headers (as before).
   */
  @Test
  void aLateCallAsksAgainWithoutTheBookingItsFirstAdmissionRedeemed() {
    String booking = deferredBooking();
    stall = Duration.ofMillis(51);

    Answer answer = transport.execute(request(booking), this::ok);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(gate.requests()).hasSize(4);
    assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
    assertThat(gate.requests().get(3).booking()).isNull();
    assertThat(gate.admissions().subList(2, 4))
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    assertThat(gate.releasedWith())
        .endsWith(Cost.requests(0).tokens(0), Cost.requests(1).tokens(15));
    assertThat(sent).singleElement().satisfies(s -> assertThat(s.headers()).isEmpty());
    assertThat(gate.outstanding()).isZero();
  }

  /** Mutation tried: the ask after the 429 reads the request's headers again (as before). */
  @Test
  void theAskAfterA429PresentsNoBookingEitherSyncOrAsync() {
    String booking = deferredBooking();
    assertThatThrownBy(() -> transport.execute(request(booking), r -> throttled()))
        .isInstanceOfSatisfying(
            DeferredException.class, e -> assertThat(e.booking()).isNotEqualTo(booking));
    assertThat(gate.requests()).hasSize(4);
    assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
    assertThat(gate.requests().get(3).booking()).isNull();

    clock.advance(Duration.ofSeconds(5));
    String second = deferredBooking();
    CompletableFuture<Answer> answer =
        transport.executeAsync(
            request(second), r -> CompletableFuture.completedFuture(throttled()));
    Throwable failure = catchThrowable(answer::join);
    assertThat(failure).isInstanceOf(CompletionException.class);
    assertThat(failure.getCause())
        .isInstanceOfSatisfying(
            DeferredException.class, e -> assertThat(e.booking()).isNotEqualTo(second));
    int last = gate.requests().size() - 1;
    assertThat(gate.requests().get(last - 1).booking()).isEqualTo(second);
    assertThat(gate.requests().get(last).booking()).isNull();
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * A refusal that says nothing helps until a reset (Anthropic's usage-limit 400) reaches the
   * caller as the gate's terminal refusal on the call that met it, not as the SDK's error, and the
   * call is not sent again; a 400 about the request itself reaches the SDK with its body. Mutation
   * tried: asking again after a 429 only (the caller gets the 400).
   */
  @Test
  void aStopReachesTheCallerAsTheGatesRefusalEitherSyncOrAsync() {
    assertThatThrownBy(() -> transport.execute(unbooked(), this::usageLimited))
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(e.resetAt()).isAfter(Instant.ofEpochSecond(0, clock.epochNanos()));
            });
    assertThat(sent).hasSize(1);
    Throwable failure =
        catchThrowable(
            transport.executeAsync(
                    unbooked(), r -> CompletableFuture.completedFuture(usageLimited(r)))
                ::join);
    assertThat(failure.getCause()).isInstanceOf(RejectedException.class);
    assertThat(sent).as("refused before it is sent").hasSize(1);
    assertThat(gate.outstanding()).isZero();

    clock.advance(Duration.ofDays(2));
    Answer bad = transport.execute(unbooked(), this::badRequest);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(new String(bad.body(), StandardCharsets.UTF_8)).contains("max_tokens");
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * A gate under an adaptive concurrency limit that measured a 2 s latency on {@link #clock} and
   * has one call in flight, so that a call whose deadline is shorter is answered {@code Expired}
   * (no probe).
   */
  private RecordingGate slowTarget() {
    InMemoryGate adaptive =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .dimension("requests", 1_000, 1_000)
                .tokensPerSecond(100_000)
                .priority("P1", 1)
                .adaptiveConcurrency(4, 64, Duration.ofSeconds(10))
                .build(),
            clock);
    Cost cost = Cost.requests(1).tokens(10);
    Grant first = ((Admission.Admitted) adaptive.admit("other", "P1", cost)).grant();
    clock.advance(Duration.ofSeconds(2));
    adaptive.release(first, cost);
    assertThat(adaptive.admit("other", "P1", cost)).isInstanceOf(Admission.Admitted.class);
    return new RecordingGate(adaptive);
  }

  private GatedTransport<Sent, Answer> transport(
      Gate to, Function<ClientGate.Builder, ClientGate.Builder> options) {
    return new GatedTransport<>(
        options.apply(ClientGate.builder(new TestDialect()).gate(to).ticker(clock)).build(),
        new Records());
  }

  private static Sent within(Duration deadline) {
    return new Sent(GateContext.of("acme", "P1").withDeadline(deadline).headers(), BODY);
  }

  /**
   * Whichever gives the shorter deadline, the SDK's timeout for the request, the caller's deadline
   * header or the client's deadline, a call it leaves less than the measured 2 s ends with {@link
   * ExpiredException} and nothing is sent; 5 s from all three is sent. Mutation tried: the SDK's
   * timeout not handed to the gate (the first call is sent).
   */
  @Test
  void aCallWhoseDeadlineTheMeasuredLatencyExceedsEndsExpiredWithoutBeingSent() {
    RecordingGate slow = slowTarget();
    GatedTransport<Sent, Answer> plain = transport(slow, b -> b);
    Duration short1500 = Duration.ofMillis(1_500);
    Duration long5 = Duration.ofSeconds(5);

    assertThatThrownBy(() -> plain.execute(unbooked(), short1500, this::ok))
        .isInstanceOfSatisfying(
            ExpiredException.class,
            e -> assertThat(e.getMessage()).contains("deadline of 1500 ms").contains("take 2000"));
    assertThatThrownBy(() -> plain.execute(within(short1500), long5, this::ok))
        .isInstanceOf(ExpiredException.class);
    assertThatThrownBy(
            () -> transport(slow, b -> b.deadline(short1500)).execute(within(long5), this::ok))
        .isInstanceOf(ExpiredException.class);
    Throwable async =
        catchThrowable(
            plain.executeAsync(unbooked(), short1500, r -> CompletableFuture.completedFuture(ok(r)))
                ::join);
    assertThat(async.getCause()).isInstanceOf(ExpiredException.class);
    assertThat(sent).isEmpty();
    assertThat(slow.requests())
        .hasSize(4)
        .allSatisfy(r -> assertThat(r.deadline()).isEqualTo(short1500));

    Answer answer = transport(slow, b -> b.deadline(long5)).execute(within(long5), long5, this::ok);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(sent).singleElement().satisfies(s -> assertThat(s.headers()).isEmpty());
  }

  /**
   * The provider takes 700 ms to answer 429: the gate is asked again with 5 s less those 700 ms;
   * when the 429 comes after the whole 5 s, the call is not asked for nor sent again. Mutation
   * tried: the ask after the 429 carries the first deadline.
   */
  @Test
  void theAskAfterA429CarriesWhatIsLeftOfTheDeadline() {
    GatedTransport<Sent, Answer> timed = transport(gate, b -> b);
    Duration deadline = Duration.ofSeconds(5);

    assertThatThrownBy(
            () ->
                timed.execute(
                    unbooked(),
                    deadline,
                    r -> {
                      sent.add(r);
                      clock.advance(Duration.ofMillis(700));
                      return throttled();
                    }))
        .isInstanceOf(DeferredException.class);
    assertThat(gate.requests()).hasSize(2);
    assertThat(gate.requests().get(0).deadline()).isEqualTo(deadline);
    assertThat(gate.requests().get(1).deadline()).isEqualTo(Duration.ofMillis(4_300));

    clock.advance(Duration.ofSeconds(10));
    assertThatThrownBy(
            () ->
                timed.execute(
                    within(deadline),
                    r -> {
                      sent.add(r);
                      clock.advance(Duration.ofSeconds(6));
                      return throttled();
                    }))
        .isInstanceOfSatisfying(
            ExpiredException.class, e -> assertThat(e.getMessage()).contains("deadline passed"));
    assertThat(gate.requests()).hasSize(3);
    assertThat(sent).hasSize(2);
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * Under an admitter whose deferrals are sent by a later attempt ({@code ActivityAdmitter}'s), the
   * SDK's timeout bounds that attempt's SDK call, not the wait for the turn: a call whose timeout
   * ends before its turn is deferred, not expired, while the caller's own deadline still applies.
   * Mutation tried: the timeout kept (the first call ends Expired).
   */
  @Test
  void anAdmitterThatDefersToALaterAttemptLeavesTheSdkTimeoutOut() {
    Admitter direct = Admitter.direct();
    Admitter later =
        new Admitter() {
          @Override
          public Grant admit(Gate at, AdmissionRequest request) {
            return direct.admit(at, request);
          }

          @Override
          public void release(Gate at, Grant grant, Cost actual) {
            direct.release(at, grant, actual);
          }

          @Override
          public RuntimeException refused(RejectReason reason, @Nullable String message) {
            return direct.refused(reason, message);
          }

          @Override
          public boolean defersToALaterAttempt() {
            return true;
          }
        };
    GatedTransport<Sent, Answer> timed = transport(gate, b -> b.admitter(later));
    Cost cost = Cost.requests(1).tokens(10);
    gate.release(((Admission.Admitted) gate.admit("acme", "P1", cost)).grant(), cost);
    Duration short300 = Duration.ofMillis(300);

    assertThatThrownBy(() -> timed.execute(unbooked(), short300, this::ok))
        .isInstanceOf(DeferredException.class);
    assertThat(gate.requests().get(1).deadline()).isNull();
    assertThatThrownBy(() -> timed.execute(within(short300), Duration.ofSeconds(5), this::ok))
        .isInstanceOf(ExpiredException.class);
    assertThat(gate.requests().get(2).deadline()).isEqualTo(short300);
    assertThat(sent).isEmpty();
  }

  @Test
  void aClientsDeadlineOutOfRangeIsRefusedNamingIt() {
    ClientGate.Builder builder = ClientGate.builder(new TestDialect());
    assertThatThrownBy(() -> builder.deadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("deadline must be in (0, 365 days], got PT0S");
    assertThatThrownBy(() -> builder.deadline(Duration.ofDays(366)))
        .hasMessageStartingWith("deadline must be in (0, 365 days]");
  }

  private Answer usageLimited(Sent request) {
    sent.add(request);
    return new Answer(
        400,
        Map.of(),
        """
        {"type":"error","error":{"type":"invalid_request_error","message":"You have reached \
        your specified API usage limits. You will regain access on 2099-01-01 at 00:00 UTC."}}\
        """
            .getBytes(StandardCharsets.UTF_8));
  }

  private Answer badRequest(Sent request) {
    sent.add(request);
    return new Answer(
        400,
        Map.of(),
        """
        {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: \
        Field required"}}"""
            .getBytes(StandardCharsets.UTF_8));
  }

  private Answer ok(Sent request) {
    sent.add(request);
    return new Answer(200, Map.of(), ANSWER);
  }

  private Answer throttled() {
    return new Answer(429, Map.of("retry-after", List.of("1")), new byte[0]);
  }

  /** The records' SDK: a request's headers and body, an answer's status, headers and body. */
  private static final class Records implements GatedTransport.Sdk<Sent, Answer> {
    @Override
    public RequestView request(Sent request) {
      return new RequestView(
          "POST",
          List.of("v1", "chat", "completions"),
          name ->
              request.headers().containsKey(name)
                  ? List.of(request.headers().get(name))
                  : List.of(),
          request::body);
    }

    @Override
    public Sent rewritten(Sent request, byte @Nullable [] json) {
      Map<String, String> headers = new LinkedHashMap<>(request.headers());
      headers.keySet().removeAll(GateContext.HEADERS);
      return new Sent(headers, json == null ? request.body() : json);
    }

    @Override
    public AnswerView answer(Answer response) {
      return new AnswerView(
          response.status(),
          response.headers().keySet(),
          name -> response.headers().getOrDefault(name, List.of()),
          () -> new ByteArrayInputStream(response.body()),
          () -> {});
    }

    @Override
    public Answer tapped(Answer response, TappedBody body) {
      try (InputStream in = body.get()) {
        return new Answer(response.status(), response.headers(), in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Requests {"model"}, answers {"usage": {"in", "out"}}; no streams. */
  private static final class TestDialect implements Dialect {
    @Override
    public boolean gates(String method, List<String> pathSegments) {
      return true;
    }

    @Override
    public ProviderCall read(ObjectNode body) {
      return new ProviderCall(body.path("model").asText(), 10, null, false);
    }

    @Override
    public boolean prepare(ObjectNode body, ProviderCall call) {
      return false;
    }

    @Override
    public Optional<Usage> usage(JsonNode answer) {
      JsonNode usage = answer.path("usage");
      return usage.has("in")
          ? Optional.of(new Usage(usage.get("in").asLong(), usage.get("out").asLong()))
          : Optional.empty();
    }

    @Override
    public StreamTally tally(ProviderCall call) {
      throw new UnsupportedOperationException("no streams here");
    }
  }
}
