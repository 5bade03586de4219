package io.sightline.routing.selection;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Named cost terms of one candidate, in the order scorers added them. Kept as two small arrays (a
 * handful of terms per candidate, built for every candidate of every decision) rather than a hash
 * map. Not thread-safe while being built; {@link #asMap()} is an immutable snapshot.
 */
public final class CostTerms {
  private String[] names = new String[4];
  private double[] values = new double[4];
  private int size;

  /** Adds {@code value} to term {@code name}; non-finite values are rejected. */
  public CostTerms add(String name, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("cost term " + name + " is not finite: " + value);
    }
    for (int i = 0; i < size; i++) {
      if (names[i].equals(name)) {
        values[i] += value;
        return this;
      }
    }
    if (size == names.length) {
      names = Arrays.copyOf(names, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    names[size] = name;
    values[size] = value;
    size++;
    return this;
  }

  public double total() {
    double t = 0;
    for (int i = 0; i < size; i++) {
      t += values[i];
    }
    return t;
  }

  /** An immutable, insertion-ordered view of the terms. */
  public Map<String, Double> asMap() {
    return new Frozen(Arrays.copyOf(names, size), Arrays.copyOf(values, size));
  }

  private static final class Frozen extends AbstractMap<String, Double> {
    private final String[] names;
    private final double[] values;

    Frozen(String[] names, double[] values) {
      this.names = names;
      this.values = values;
    }

    @Override
    public Double get(Object key) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(key)) {
          return values[i];
        }
      }
      return null;
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }

    @Override
    public int size() {
      return names.length;
    }

    @Override
    public Set<Entry<String, Double>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Entry<String, Double>> iterator() {
          return new Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
              return i < names.length;
            }

            @Override
            public Entry<String, Double> next() {
              if (i >= names.length) {
                throw new NoSuchElementException();
              }
              Entry<String, Double> e = new SimpleImmutableEntry<>(names[i], values[i]);
              i++;
              return e;
            }
          };
        }

        @Override
        public int size() {
          return names.length;
        }
      };
    }
  }
}
