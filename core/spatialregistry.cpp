// SPDX-License-Identifier: MIT
#include "core/spatial.h"

#include "core/encodings/mrope.h"
#include "core/encodings/pixtralrope.h"
#include "core/encodings/rope2d.h"
#include "core/encodings/sincos2d.h"
#include "core/encodings/vitlearned.h"

namespace poslab::core {

const std::vector<SpatialSchemeDescriptor>& spatialSchemes()
{
    // Its own table, not lines of schemes(): the 1-D views, tst_registry and the lessons draw every entry of
    // schemes() over a PositionList, and these schemes need a grid or a multimodal sequence instead.
    static const std::vector<SpatialSchemeDescriptor> table = {
        vitLearnedScheme(), sincos2dScheme(), rope2dScheme(), pixtralRopeScheme(), mropeScheme(),
    };
    return table;
}

} // namespace poslab::core
