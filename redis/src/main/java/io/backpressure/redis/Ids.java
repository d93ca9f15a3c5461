package io.backpressure.redis;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Grant and booking ids, made by the client before the call so the script can store them: a random
 * 64-bit prefix per gate and a counter, unique across processes without coordination. Thread-safe.
 */
final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern GRANT = Pattern.compile("g[0-9a-z]{1,13}\\.[0-9a-z]{1,13}");
  private static final Pattern BOOKING = Pattern.compile("b[0-9a-z]{1,13}\\.[0-9a-z]{1,13}");

  private final String prefix = Long.toUnsignedString(RANDOM.nextLong(), 36);
  private final AtomicLong counter = new AtomicLong();

  String grant() {
    return "g" + prefix + "." + Long.toString(counter.incrementAndGet(), 36);
  }

  String booking() {
    return "b" + prefix + "." + Long.toString(counter.incrementAndGet(), 36);
  }

  /** A random suffix for a policy version. */
  static String suffix() {
    return Long.toUnsignedString(RANDOM.nextLong(), 36);
  }

  /** Whether {@code id} can be a grant id of this backend (anything else is not looked up). */
  static boolean isGrant(String id) {
    return id != null && GRANT.matcher(id).matches();
  }

  /**
   * Whether {@code id} can be a booking id of this backend (anything else counts as no booking).
   */
  static boolean isBooking(@Nullable String id) {
    return id != null && BOOKING.matcher(id).matches();
  }
}
