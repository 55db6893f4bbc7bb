// SPDX-License-Identifier: MIT
// Fuzz target: the batch file of `poslab export --batch` (app/batchfile.h): the file parsed, every entry merged
// with the defaults and turned into command-line arguments. Any bytes give arguments or an InputError.
#include "app/batchfile.h"
#include "core/errors.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    try {
        const poslab::app::BatchFile batch = poslab::app::parseBatchFile(bytes, "fuzz.json");
        for (qsizetype i = 0; i < batch.figures.size(); ++i) {
            try {
                (void)poslab::app::entryArguments(poslab::app::batchEntry(batch, i));
            } catch (const poslab::core::InputError&) { }
        }
    } catch (const poslab::core::InputError&) { }
    return 0;
}
