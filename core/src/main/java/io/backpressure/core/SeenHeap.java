package io.backpressure.core;

import java.util.Arrays;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * A binary min-heap whose elements record their own position in it: the active queues of {@link
 * NestedBuckets} by (last seen, touch order), the order idle eviction takes them in.
 *
 * <p>Every admission takes its queue out and puts it back with a new last-seen time and touch
 * order, and so does a release that ends the queue's last call. A {@code TreeSet} allocates a tree
 * entry at each insertion; this heap allocates nothing once its array has grown to the number of
 * active queues, and each removal or insertion costs {@code O(log n)} sift steps. It offers the
 * operations eviction needs ({@link #first}, {@link #pollFirst}) and no iteration: the set of
 * queues idle at a given time is the same in either structure, and eviction sorts them by touch
 * order itself.
 *
 * <p>An element's ordering must not change while it is in the heap unless {@link #reorder} is
 * called for it at once. Not thread-safe: used under its gate's lock.
 */
final class SeenHeap<E extends SeenHeap.Member> {

  /** What the heap needs of an element: a slot for its position (−1 while it is not in a heap). */
  abstract static class Member {
    private int heapIndex = -1;
  }

  private final Comparator<? super E> order;
  private Member[] heap = new Member[16];
  private int size;

  SeenHeap(Comparator<? super E> order) {
    this.order = order;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The least element; the heap must not be empty. */
  E first() {
    return element(0);
  }

  /** Removes and returns the least element, or null when the heap is empty. */
  @Nullable E pollFirst() {
    if (size == 0) {
      return null;
    }
    E least = element(0);
    removeAt(0);
    return least;
  }

  /** Adds {@code e}, which must not be in a heap already. */
  void add(E e) {
    Member added = e;
    if (added.heapIndex >= 0) {
      throw new IllegalStateException("already in a heap");
    }
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    size++;
    place(added, size - 1);
    siftUp(size - 1);
  }

  /** Removes {@code e}; returns false when it was not in the heap. */
  boolean remove(E e) {
    Member removed = e;
    int i = removed.heapIndex;
    if (i < 0 || i >= size || heap[i] != removed) {
      return false;
    }
    removeAt(i);
    return true;
  }

  /**
   * Restores the order after the ordering of {@code e}, which is in this heap, changed: {@code
   * O(log n)} sift steps, as a removal and insertion would take together, but one pass.
   */
  void reorder(E e) {
    Member moved = e;
    int i = moved.heapIndex;
    if (i < 0 || i >= size || heap[i] != moved) {
      throw new IllegalStateException("not in this heap");
    }
    siftUp(i);
    if (heap[i] == moved) {
      siftDown(i);
    }
  }

  private void removeAt(int i) {
    Member gone = heap[i];
    gone.heapIndex = -1;
    size--;
    if (i == size) {
      heap[size] = null;
      return;
    }
    Member last = heap[size];
    heap[size] = null;
    heap[i] = last;
    last.heapIndex = i;
    siftDown(i);
    if (heap[i] == last) {
      siftUp(i);
    }
  }

  private void siftUp(int i) {
    Member moving = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (compare(moving, heap[parent]) >= 0) {
        break;
      }
      place(heap[parent], i);
      i = parent;
    }
    place(moving, i);
  }

  private void siftDown(int i) {
    Member moving = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && compare(heap[right], heap[child]) < 0) {
        child = right;
      }
      if (compare(moving, heap[child]) <= 0) {
        break;
      }
      place(heap[child], i);
      i = child;
    }
    place(moving, i);
  }

  private void place(Member e, int i) {
    heap[i] = e;
    e.heapIndex = i;
  }

  @SuppressWarnings("unchecked") // only elements of type E are ever added
  private int compare(Member a, Member b) {
    return order.compare((E) a, (E) b);
  }

  @SuppressWarnings("unchecked") // only elements of type E are ever added
  private E element(int i) {
    return (E) heap[i];
  }
}
