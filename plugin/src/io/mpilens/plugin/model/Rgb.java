package io.mpilens.plugin.model;

/** A colour as the model decides it; the views turn it into an SWT colour. */
public record Rgb(int red, int green, int blue) {
    public Rgb {
        if ((red | green | blue) >>> 8 != 0) throw new IllegalArgumentException("component out of 0..255");
    }

    public static Rgb hex(int rgb) {
        return new Rgb((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
    }

    @Override
    public String toString() {
        return String.format("#%02x%02x%02x", red, green, blue);
    }
}
