package io.backpressure.temporal;

import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.interceptors.Header;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor.ActivityInput;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The two activity headers through which the workflow side tells the activity side how to defer.
 * Header values are JSON strings written with the SDK's standard converter, never with a custom
 * codec, so both sides read them alike.
 */
final class Headers {

  /** Present (value {@code "workflow"}) when the workflow sleeps on deferrals itself. */
  static final String DEFERRAL = "backpressure-deferral";

  /** The booking the previous deferral of this call returned. */
  static final String BOOKING = "backpressure-booking";

  /**
   * When the whole call times out, as its first run read it ({@link CallDeadline}): ms since the
   * epoch, in decimal.
   */
  static final String DEADLINE = "backpressure-deadline";

  private static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;

  private Headers() {}

  /**
   * {@code input} with the headers of a workflow-timed attempt that presents {@code booking} and
   * carries the whole call's end {@code callEndMillis} (null: none, or the first run).
   */
  static <R> ActivityInput<R> workflowTimed(
      ActivityInput<R> input, @Nullable String booking, @Nullable Long callEndMillis) {
    Map<String, Payload> values = new HashMap<>(input.getHeader().getValues());
    values.put(DEFERRAL, encode("workflow"));
    if (booking == null) {
      values.remove(BOOKING);
    } else {
      values.put(BOOKING, encode(booking));
    }
    if (callEndMillis == null) {
      values.remove(DEADLINE);
    } else {
      values.put(DEADLINE, encode(Long.toString(callEndMillis)));
    }
    return new ActivityInput<>(
        input.getActivityName(),
        input.getResultClass(),
        input.getResultType(),
        input.getArgs(),
        input.getOptions(),
        new Header(values));
  }

  /** The scope the headers describe, or {@code null} when the workflow side set none. */
  static @Nullable ActivityScope read(Header header) {
    Map<String, Payload> values = header.getValues();
    Payload deferral = values.get(DEFERRAL);
    if (deferral == null) {
      return null;
    }
    Payload booking = values.get(BOOKING);
    Payload deadline = values.get(DEADLINE);
    Long callEnd = null;
    if (deadline != null) {
      try {
        callEnd = Long.parseLong(decode(deadline));
      } catch (NumberFormatException notOurs) {
        callEnd = null;
      }
    }
    return new ActivityScope(
        "workflow".equals(decode(deferral)), booking == null ? null : decode(booking), callEnd);
  }

  private static Payload encode(String value) {
    return CONVERTER.toPayload(value).orElseThrow();
  }

  private static String decode(Payload payload) {
    return CONVERTER.fromPayload(payload, String.class, String.class);
  }
}
