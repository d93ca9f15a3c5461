package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GrantTableTest {
  @Test
  void findsTakesOutAndExpiresWhatAMapWould() {
    Random random = new Random(23);
    GrantTable table = new GrantTable();
    Map<String, NestedBuckets.Booking> reference = new HashMap<>();
    List<String> ids = new ArrayList<>();
    long next = 0;
    long now = 0;
    for (int step = 0; step < 50_000; step++) {
      int action = random.nextInt(10);
      if (action < 5) {
        long number = ++next;
        NestedBuckets.Booking booking = new NestedBuckets.Booking("t", 0, 1);
        booking.expiresAt = now + 1 + random.nextInt(1_000);
        table.put(number, booking);
        String id = table.id(number);
        reference.put(id, booking);
        ids.add(id);
      } else if (action < 9 && !ids.isEmpty()) {
        // Ids released twice, or already expired, find nothing the second time.
        String id = ids.get(random.nextInt(ids.size()));
        assertThat(table.remove(id)).isSameAs(reference.remove(id));
      } else {
        now += random.nextInt(200);
        long at = now;
        table.removeExpired(at);
        reference.values().removeIf(b -> b.expiresAt <= at);
      }
      assertThat(table.size()).isEqualTo(reference.size());
    }
    for (String id : ids) {
      assertThat(table.remove(id)).isSameAs(reference.remove(id));
    }
    assertThat(table.size()).isZero();
  }

  @Test
  void anIdIsTheNumberInBase64AndOnlyItsOwnIdFindsIt() {
    GrantTable table = new GrantTable();
    assertThat(table.id(1)).isEqualTo("g1");
    assertThat(table.id(64 + 12)).isEqualTo("g1C");
    assertThat(table.id((1L << 60) - 1)).isEqualTo("g__________");
    table.put(76, new NestedBuckets.Booking("t", 0, 1));
    for (String id : List.of("", "g", "1C", "b1C", "g01C", "g1C!", "g1C\u00e9", "g12345678901")) {
      assertThat(table.remove(id)).as(id).isNull();
    }
    assertThat(table.remove("g1C")).isNotNull();
    Random random = new Random(5);
    for (int i = 0; i < 10_000; i++) {
      long number = 1 + (random.nextLong() >>> 4);
      assertThat(GrantTable.number(table.id(number))).isEqualTo(number);
    }
  }
}
