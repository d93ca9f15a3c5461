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
        reference.put(GrantTable.id(number), booking);
        ids.add(GrantTable.id(number));
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
  void anIdItDidNotHandOutFindsNothing() {
    GrantTable table = new GrantTable();
    table.put(12, new NestedBuckets.Booking("t", 0, 1));
    for (String id :
        List.of("", "g", "12", "b12", "g012", "g12x", "g-12", "g1234567890123456789")) {
      assertThat(table.remove(id)).as(id).isNull();
    }
    assertThat(GrantTable.id(12)).isEqualTo("g12");
    assertThat(table.remove("g12")).isNotNull();
  }
}
