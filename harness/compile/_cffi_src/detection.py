"""libavutil/detection_bbox.h: the boxes dnn_detect attaches and dnn_classify labels."""

INCLUDES = """
#include "libavutil/detection_bbox.h"
"""

TYPES = """
typedef struct AVRational {
    int num;
    int den;
} AVRational;

typedef struct AVDetectionBBox {
    int x;
    int y;
    int w;
    int h;
    char detect_label[...];
    AVRational detect_confidence;
    uint32_t classify_count;
    char classify_labels[4][64];
    AVRational classify_confidences[4];
    ...;
} AVDetectionBBox;

typedef struct AVDetectionBBoxHeader {
    uint32_t nb_bboxes;
    ...;
} AVDetectionBBoxHeader;

typedef struct AVFrameSideData {
    uint8_t *data;
    size_t size;
    ...;
} AVFrameSideData;

enum AVFrameSideDataType { AV_FRAME_DATA_DETECTION_BBOXES, ... };
"""

FUNCTIONS = """
AVFrameSideData *av_frame_get_side_data(const AVFrame *frame, enum AVFrameSideDataType type);
AVDetectionBBox *av_get_detection_bbox(const AVDetectionBBoxHeader *header, unsigned int idx);
"""

CUSTOMIZATIONS = ""
