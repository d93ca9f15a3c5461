package io.backpressure.temporal;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.converter.DataConverterException;
import org.jspecify.annotations.Nullable;

/**
 * The state a server-timed deferral hands to the next attempt through the activity's heartbeat
 * details: the booking to redeem and when the call was first deferred. The SDK sends the last
 * heartbeat details with the failed attempt, and the server delivers them to the next one.
 *
 * <p>Encoded as one string, {@code "backpressure/1 <sinceEpochMillis> <booking>"}, so that it reads
 * well in the Temporal UI and so that heartbeat details of another shape (an activity that
 * heartbeats its own progress) are recognised as not ours and ignored.
 *
 * @param sinceEpochMillis wall-clock time of this call's first deferral, in epoch milliseconds
 * @param booking the booking to present on the next attempt
 */
record ServerDeferral(long sinceEpochMillis, String booking) {

  private static final String PREFIX = "backpressure/1 ";

  /** The state the previous attempt left, or {@code null} when it left none of ours. */
  static @Nullable ServerDeferral read(ActivityExecutionContext context) {
    String details;
    try {
      details = context.getHeartbeatDetails(String.class).orElse(null);
    } catch (DataConverterException notOurs) {
      return null;
    }
    if (details == null || !details.startsWith(PREFIX)) {
      return null;
    }
    int space = details.indexOf(' ', PREFIX.length());
    if (space < 0) {
      return null;
    }
    try {
      long since = Long.parseLong(details.substring(PREFIX.length(), space));
      return new ServerDeferral(since, details.substring(space + 1));
    } catch (NumberFormatException notOurs) {
      return null;
    }
  }

  /** Records this state as the attempt's heartbeat details. */
  void write(ActivityExecutionContext context) {
    context.heartbeat(PREFIX + sinceEpochMillis + " " + booking);
  }
}
