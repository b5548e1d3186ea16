package recbid.baseline;

/**
 * One validated bid request. String values are byte strings (one char per
 * byte, see {@link Ascii}); null means absent.
 */
final class BidRequest {
    String id;
    String impId;
    int w;
    int h;
    long floor; // micros
    String cur; // null means USD
    String site;
    String bundle;
    String cat; // comma list of the page's categories
    String bcat; // comma list of blocked categories
    String badv; // comma list of blocked advertiser domains
    String os;
    int devType; // 0: absent
    String country;
    String region;
    String city;
    String uid;
    long timeMs; // the request time: the server clock at arrival (ts, when given, under -trust-request-ts)
    int tmaxMs; // 0: the default
    boolean test;
    boolean secure;
    long arrivedNanos; // System.nanoTime() when the request reached the servlet
    Exchange exchange; // the exchange whose path the request came on
}
