package io.backpressure.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory gate's outstanding grants by grant number: an open-addressing hash table with
 * linear probing, whose two arrays are all it allocates. A map of strings to bookings allocates an
 * entry per grant; this table allocates nothing once it has grown to the number of grants
 * outstanding, and finds a grant from its id without building a key.
 *
 * <p>A grant's id is {@code g} and its number in base 64 (URL-safe digits, most significant first):
 * at most 8 characters, whose string takes 48 bytes, up to the 4 398 046 511 103rd grant (in
 * decimal the id reaches 9 characters and 56 bytes at the ten-millionth).
 *
 * <p>Removal shifts the entries after the freed slot back (no tombstones), so a lookup stops at the
 * first empty slot. The table doubles when it is half full. Not thread-safe: used under its gate's
 * lock.
 */
final class GrantTable {
  /** The first character of every grant id. */
  private static final byte PREFIX = 'g';

  /** The digits of a grant number in its id, 6 bits each. */
  private static final byte[] DIGITS =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
          .getBytes(StandardCharsets.US_ASCII);

  /** The value of each character as a digit, −1 for a character that is none. */
  private static final int[] VALUES = new int[128];

  static {
    Arrays.fill(VALUES, -1);
    for (int d = 0; d < DIGITS.length; d++) {
      VALUES[DIGITS[d]] = d;
    }
  }

  /** Most digits an id has: 10 × 6 bits, so a number never overflows. */
  private static final int MAX_DIGITS = 10;

  /** Where {@link #id} writes an id before copying it into its string. */
  private final byte[] idBytes = new byte[1 + MAX_DIGITS];

  private long[] numbers = new long[64];
  private NestedBuckets.@Nullable Booking[] bookings = new NestedBuckets.Booking[64];
  private int size;

  /** The id of grant {@code number} (positive, below 2⁶⁰): one string, no other allocation. */
  String id(long number) {
    int at = idBytes.length;
    long rest = number;
    do {
      idBytes[--at] = DIGITS[(int) (rest & 63)];
      rest >>>= 6;
    } while (rest != 0);
    idBytes[--at] = PREFIX;
    return new String(idBytes, at, idBytes.length - at, StandardCharsets.ISO_8859_1);
  }

  /**
   * The number in {@code id}, or −1 when it is not a grant id: {@code g} then 1 to {@link
   * #MAX_DIGITS} digits, no leading zero.
   */
  static long number(String id) {
    int length = id.length();
    if (length < 2 || length > 1 + MAX_DIGITS || id.charAt(0) != PREFIX || id.charAt(1) == '0') {
      return -1;
    }
    long number = 0;
    for (int i = 1; i < length; i++) {
      char c = id.charAt(i);
      int value = c < VALUES.length ? VALUES[c] : -1;
      if (value < 0) {
        return -1;
      }
      number = number << 6 | value;
    }
    return number;
  }

  /** Records the booking of grant {@code number}, which is not in the table. */
  void put(long number, NestedBuckets.Booking booking) {
    if (2 * (size + 1) > numbers.length) {
      grow();
    }
    int i = slot(number);
    while (bookings[i] != null) {
      i = next(i);
    }
    numbers[i] = number;
    bookings[i] = booking;
    size++;
  }

  /** Takes out and returns the booking of the grant with {@code id}, or null when there is none. */
  NestedBuckets.@Nullable Booking remove(String id) {
    long number = number(id);
    if (number < 0) {
      return null;
    }
    for (int i = slot(number); bookings[i] != null; i = next(i)) {
      if (numbers[i] == number) {
        NestedBuckets.Booking booking = bookings[i];
        removeAt(i);
        return booking;
      }
    }
    return null;
  }

  /** Forgets every grant whose booking expires at or before {@code now} (µs). */
  void removeExpired(long now) {
    for (int i = 0; i < bookings.length; i++) {
      // removeAt may move a later entry into slot i: look at the slot again.
      NestedBuckets.Booking booking;
      while ((booking = bookings[i]) != null && booking.expiresAt <= now) {
        removeAt(i);
      }
    }
  }

  /** Frees slot {@code hole}, then moves back each entry of its run that may no longer be found. */
  private void removeAt(int hole) {
    bookings[hole] = null;
    size--;
    for (int i = next(hole); bookings[i] != null; i = next(i)) {
      int home = slot(numbers[i]);
      // The entry at i stays unless its home lies cyclically in (hole, i].
      boolean stays = hole < i ? hole < home && home <= i : hole < home || home <= i;
      if (!stays) {
        numbers[hole] = numbers[i];
        bookings[hole] = bookings[i];
        bookings[i] = null;
        hole = i;
      }
    }
  }

  private void grow() {
    long[] oldNumbers = numbers;
    NestedBuckets.@Nullable Booking[] oldBookings = bookings;
    numbers = new long[oldNumbers.length * 2];
    bookings = new NestedBuckets.Booking[oldNumbers.length * 2];
    size = 0;
    for (int i = 0; i < oldNumbers.length; i++) {
      NestedBuckets.Booking booking = oldBookings[i];
      if (booking != null) {
        put(oldNumbers[i], booking);
      }
    }
  }

  /** The home slot of {@code number}: its bits mixed (Fibonacci hashing), then masked. */
  private int slot(long number) {
    return (int) ((number * 0x9E3779B97F4A7C15L) >>> 32) & (numbers.length - 1);
  }

  private int next(int i) {
    return (i + 1) & (numbers.length - 1);
  }

  /** Grants outstanding (for tests). */
  int size() {
    return size;
  }
}
